# Fixture: a daemon that runs only because fsmove lifts a condition of its
# unit, and then fails, as chronyd does without CAP_SYS_TIME (coverage,
# systemd mode only).
#
# The unit says ConditionVirtualization=!container, which a host meets:
# fsmove lifts it for the trace. The daemon reads its configuration, then
# exits 1 (it cannot do what the container forbids); the unit is oneshot,
# so "systemctl start" fails and Puppet fails the Service. That failure is
# the lift's, not the module's: the apply counts as done, the Service as
# observed, and File['/etc/cov_liftfails.conf'], which does not notify it,
# is found. Expected: MN File['/etc/cov_liftfails.conf'] ~>
# Service['cov-liftfails'], exit 1, run.json's expected_failures naming
# the Service.
class cov_liftfails {
  file { '/etc/cov_liftfails.conf':
    ensure  => file,
    content => "clock=host\n",
    before  => Service['cov-liftfails'],
  }

  file { '/etc/systemd/system/cov-liftfails.service':
    ensure  => file,
    content => @(UNIT),
      [Unit]
      Description=fsmove fixture cov_liftfails: not in a container
      ConditionVirtualization=!container

      [Service]
      Type=oneshot
      RemainAfterExit=yes
      ExecStart=/bin/sh -c 'cat /etc/cov_liftfails.conf; exit 1'
      | UNIT
    notify  => Service['cov-liftfails'],
  }

  service { 'cov-liftfails':
    ensure => running,
  }
}
