# Fixture: a correct module that requires Puppet 8 (metadata.json). The
# directory comes before its file (autorequire). Expected findings: none.
class requires_puppet8 {
  file { '/opt/requires_puppet8':
    ensure => directory,
  }

  file { '/opt/requires_puppet8/app.conf':
    ensure  => file,
    content => "puppet=${facts['puppetversion']}\n",
  }
}
