# Fixture: missing notifier from a package to its service.
#
# Service['cron'] requires Package['cron'] but is not notified by it, so an
# upgrade of the package would leave the old daemon running. Expected
# findings: none by default; one MN from Package['cron'] to Service['cron']
# with --package-notify.
class mn_package_service {
  package { 'cron':
    ensure => installed,
  }

  service { 'cron':
    ensure  => running,
    require => Package['cron'],
  }
}
