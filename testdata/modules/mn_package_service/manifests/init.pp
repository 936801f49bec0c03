# Fixture: missing notifier from a package to its service.
#
# Service['cron'] requires Package['cron'] but is not notified by it, so an
# upgrade of the package would leave the old daemon running. Expected
# findings: none of it by default; one MN from Package['cron'] to
# Service['cron'] with --package-notify.
#
# And a fault of ordering (rule 21): Package['cron'] makes
# /etc/cron.hourly (the image has none), and
# File['/etc/cron.hourly/mn_package_service'] puts a script there, unordered
# with the Package. This run applies the Package first (manifest order); in
# the other order the File finds no /etc/cron.hourly and fails. Puppet
# autorequires a parent directory only when a File manages it. Expected
# finding, with every flag: MOR Package['cron'] ->
# File['/etc/cron.hourly/mn_package_service']. Near miss:
# File['/etc/mn_package_service.d/a.conf'] writes in a directory that
# File['/etc/mn_package_service.d'] makes, which Puppet autorequires.
class mn_package_service {
  package { 'cron':
    ensure => installed,
  }

  file { '/etc/cron.hourly/mn_package_service':
    ensure  => file,
    mode    => '0755',
    content => "#!/bin/sh\nexit 0\n",
  }

  file { '/etc/mn_package_service.d':
    ensure => directory,
  }

  file { '/etc/mn_package_service.d/a.conf':
    ensure  => file,
    content => "a = 1\n",
  }

  service { 'cron':
    ensure  => running,
    require => Package['cron'],
  }
}
