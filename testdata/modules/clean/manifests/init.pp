# Fixture: a correct module. Every producer is ordered before its consumers
# (the directory before its file by Puppet's autorequire, the file before the
# exec by require). Expected findings: none.
class clean {
  file { '/opt/clean':
    ensure => directory,
  }

  file { '/opt/clean/app.conf':
    ensure  => file,
    content => "name=clean\n",
  }

  exec { 'check-conf':
    command   => '/bin/cat /opt/clean/app.conf',
    logoutput => true,
    require   => File['/opt/clean/app.conf'],
  }
}
