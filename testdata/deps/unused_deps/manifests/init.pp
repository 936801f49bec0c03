# EPEL and SELinux are for RedHat's systems: on Debian the code never
# reaches them, so Puppet never loads either module.
class unused_deps {
  if $facts['os']['family'] == 'RedHat' {
    include epel
    selinux::boolean { 'httpd_can_network_connect':
      ensure => 'on',
    }
  }
  file { '/etc/unused_deps.conf':
    ensure  => file,
    content => "family ${facts['os']['family']}\n",
  }
}
