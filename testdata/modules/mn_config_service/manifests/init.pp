# Fixture: missing notifier (configuration file of a service).
#
# cron reads every file in /etc/cron.d when it starts. File['/etc/cron.d/
# mn_config_service'] is ordered before Service['cron'] but does not notify
# it, so a later change of the file would leave cron running with the old
# table. Expected finding: one MN from the File to the Service (and, only
# with --package-notify, one from Package['cron'] to the Service).
#
# With systemd as PID 1 (fsmove's default) Puppet starts cron.service and
# the daemon runs in that unit's cgroup; with --init none Puppet uses the
# "debian" provider (/etc/init.d/cron) and the daemon is its child. Either
# way the image's policy-rc.d stops apt from starting cron during the
# install, so cron first starts in Service['cron'].
class mn_config_service {
  package { 'cron':
    ensure => installed,
  }

  file { '/etc/cron.d/mn_config_service':
    ensure  => file,
    content => "# written by the fsmove fixture mn_config_service\n* * * * * root /bin/true\n",
    require => Package['cron'],
  }

  service { 'cron':
    ensure  => running,
    require => [Package['cron'], File['/etc/cron.d/mn_config_service']],
  }
}
