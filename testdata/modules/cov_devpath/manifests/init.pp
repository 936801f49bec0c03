# Fixture: a daemon whose unit asks for a device the container lacks
# (coverage, systemd mode only): the near miss of cov_captime.
#
# ConditionPathExists=/dev/fsmove-absent is not a condition fsmove lifts:
# a device is not the container's to fake, and a host need not have it
# either. systemd skips the start, no process reads the configuration, and
# File['/etc/cov_devpath.conf'] does not notify the Service: the missing
# notifier cannot be seen. Expected: no finding, exit 4, the report naming
# Service['cov-devpath'] and its condition.
class cov_devpath {
  file { '/etc/cov_devpath.conf':
    ensure  => file,
    content => "device=/dev/fsmove-absent\n",
    before  => Service['cov-devpath'],
  }

  file { '/etc/systemd/system/cov-devpath.service':
    ensure  => file,
    content => @(UNIT),
      [Unit]
      Description=fsmove fixture cov_devpath: needs a device
      ConditionPathExists=/dev/fsmove-absent

      [Service]
      ExecStartPre=/bin/cat /etc/cov_devpath.conf
      ExecStart=/bin/sleep infinity
      | UNIT
    notify  => Service['cov-devpath'],
  }

  service { 'cov-devpath':
    ensure => running,
  }
}
