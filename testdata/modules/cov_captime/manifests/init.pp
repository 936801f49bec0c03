# Fixture: a daemon whose unit asks for a capability the container lacks
# (coverage, systemd mode only).
#
# Debian's chrony and ntpsec units have ConditionCapability=CAP_SYS_TIME:
# root has it on a host, fsmove's container does not, so systemd skips the
# start, Puppet counts it a success, and no process reads the
# configuration: the missing notifier below cannot be seen.
# File['/etc/cov_captime.conf'] is ordered before the Service but does not
# notify it. Expected: no finding, exit 4, the report naming
# Service['cov-captime'] and its condition. (Were the unit started, its
# ExecStartPre would read the configuration before the start returns, and
# the MN would be seen.)
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
