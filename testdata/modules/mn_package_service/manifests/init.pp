# Fixture: missing notifier from a package to its service.
#
# Service['cron'] requires Package['cron'] but is not notified by it, so an
# upgrade of the package would leave the old daemon running. Expected
# findings: none of it by default; one MN from Package['cron'] to
# Service['cron'] with --package-notify.
#
# And a fault of ordering (rule 21): Package['cron'] makes
# /etc/cron.hourly (the image has none) and its .placeholder.
# File['/etc/cron.hourly/.placeholder'] manages that file's mode, unordered
# with the Package. This run applies the Package first (manifest order), so
# the File finds the file made and right, and changes nothing; in the other
# order it has to make the file and fails, for want of /etc/cron.hourly.
# Puppet autorequires a parent directory only when a File manages it.
# Expected finding, with every flag: MOR Package['cron'] ->
# File['/etc/cron.hourly/.placeholder'] (stop 56's fsmove said nothing: the
# two met on no path the File changed). Near miss:
# File['/etc/mn_package_service.d/a.conf'] writes in a directory that
# File['/etc/mn_package_service.d'] makes, which Puppet autorequires.
class mn_package_service {
  package { 'cron':
    ensure => installed,
  }

  file { '/etc/cron.hourly/.placeholder':
    ensure => file,
    mode   => '0644',
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
