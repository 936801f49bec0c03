# Fixture: a daemon whose unit asks for a capability the container lacks
# (coverage, systemd mode only).
#
# Debian's chrony and ntpsec units have ConditionCapability=CAP_SYS_TIME:
# root has it on a host, fsmove's container does not, so systemd would
# skip the start, Puppet would count it a success, and no process would
# read the configuration: the missing notifier below could not be seen.
# fsmove lifts that condition for its container (no capability is given),
# so the unit starts and its ExecStartPre reads the configuration before
# the start returns (ExecStart may run after the trace ends).
#
# File['/etc/cov_captime.conf'] is ordered before the Service but does not
# notify it. Expected: an MN from it to Service['cov-captime'], and the
# report's coverage saying the unit started despite its condition.
class cov_captime {
  file { '/etc/cov_captime.conf':
    ensure  => file,
    content => "server=time.example\n",
    before  => Service['cov-captime'],
  }

  file { '/etc/systemd/system/cov-captime.service':
    ensure  => file,
    content => @(UNIT),
      [Unit]
      Description=fsmove fixture cov_captime: needs CAP_SYS_TIME
      ConditionCapability=CAP_SYS_TIME

      [Service]
      ExecStartPre=/bin/cat /etc/cov_captime.conf
      ExecStart=/bin/sleep infinity
      | UNIT
    notify  => Service['cov-captime'],
  }

  service { 'cov-captime':
    ensure => running,
  }
}
