# Fixture: a daemon whose unit asks for a capability the container lacks
# (coverage, systemd mode only).
#
# Debian's chrony and ntpsec units have ConditionCapability=CAP_SYS_TIME:
# root has it on a host, fsmove's container does not, so systemd would
# skip the start, Puppet count it a success, and no process read the
# configuration: the missing notifier below could not be seen. fsmove
# lifts that condition for the unit (no capability is given), the daemon
# starts and its ExecStartPre reads the configuration.
# File['/etc/cov_captime.conf'] is ordered before the Service but does not
# notify it. Expected: MN File['/etc/cov_captime.conf'] ~>
# Service['cov-captime'], exit 1, the Service observed and said to have
# started despite its condition. Near miss: cov_devpath, whose condition
# is not lifted.
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
