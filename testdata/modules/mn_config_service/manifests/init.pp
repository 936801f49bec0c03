# Fixture: missing notifier (configuration file of a service).
#
# cron reads every file in /etc/cron.d when it starts. File['/etc/cron.d/
# mn_config_service'] is ordered before Service['cron'] but does not notify
# it, so a later change of the file would leave cron running with the old
# table. Expected finding: one MN from the File to the Service (and, only
# with --package-notify, one from Package['cron'] to the Service).
#
# The image has no systemd as PID 1, so Puppet uses the "debian" service
# provider (/etc/init.d/cron). The image's policy-rc.d stops apt from
# starting cron during the install, so cron first starts in Service['cron'].
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
