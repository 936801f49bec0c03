# Relationships written every way a module writes them, for Plant
# (plant_test.go); plant.json is what Puppet's parser says of this file
# (go test -run TestLocateCases -update rewrites it).
class plant {
  File { require => Package['default'] }

  file { '/etc/one.conf':
    ensure => file,
    before => Service['s'],
  }

  file { '/etc/listed.conf':
    ensure => file,
    notify => [Service['s'], Exec['e']],
  }

  file { '/etc/lines.conf':
    before => [
      Service['s'],
      Exec['e'],
    ],
  }

  service { 's':
    ensure    => running,
    subscribe => File['/etc/sub.conf'],
  }

  exec { 'e':
    command => '/bin/true',
    require => [Package[$pkg], File['/etc/sub.conf']],
  }

  file { '/etc/sub.conf': ensure => file, require => Package['p'], mode => '0644' }

  file { '/etc/defaulted.conf':
    ensure => file,
  }

  package { ['p', 'q', 'default', 'x']: }

  Package['p'] -> File['/etc/chained.conf']
  Package['q'] -> File['/etc/chained.conf'] ~> Service['t']
  file { '/etc/decl.conf': ensure => file } -> exec { 'after-decl': command => '/bin/true' }
  Service['t'] <~ File['/etc/back.conf']
  Package['x'] -> File['/etc/a'] -> File['/etc/b'] -> File['/etc/c']
}
