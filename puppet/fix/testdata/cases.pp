# Declarations for puppet/fix's tests: each resource is one case of
# where and how an edit goes. locate_test.go keeps cases.json (what
# Puppet's parser says of this file) in step with it.
class cases::config {
  # Aligned arrows and a trailing comma: a new attribute is aligned too.
  file { '/etc/aligned.conf':
    ensure  => file,
    content => "x\n",
  }

  # A new name longer than the column: every arrow moves.
  file { '/etc/realign.conf':
    ensure => file,
    mode   => '0644',
  }

  # One space before each arrow, no trailing comma.
  file { '/etc/plain.conf':
    ensure => file,
    owner => 'root'
  }

  # One line.
  file { '/etc/oneline.conf': ensure => file }

  # No attribute at all.
  file { '/etc/empty.conf': }

  # A require that is one reference: it becomes an array.
  exec { 'one-ref':
    command => '/bin/true',
    require => Package['a'],
  }

  # A require that is an array on one line.
  exec { 'array':
    command => '/bin/true',
    require => [Package['a'], Package['b']],
  }

  # A require written one element a line.
  exec { 'lines':
    command => '/bin/true',
    require => [
      Package['a'],
      Package['b'],
    ],
  }
}

class cases::service {
  # The service lists what it needs; one of them must notify it.
  service { 'svc':
    ensure  => running,
    require => [Package['a'], File['/etc/listed.conf'], Package['b']],
  }
}

class cases {
  contain cases::config
  contain cases::service
  Class['cases::config'] -> Class['cases::service']
  File['/etc/chained.conf'] -> Service['other']
}

class cases::extra {
  # An ordering that becomes a notification.
  file { '/etc/ordered.conf':
    ensure => file,
    before => Service['svc'],
  }

  # A require set by a variable: not extended.
  exec { 'variable':
    command => '/bin/true',
    require => $deps,
  }
}

define cases::instance(String $port) {
  file { "/etc/instance-${title}.conf":
    ensure => file,
  }

  service { "instance-${title}":
    ensure => running,
  }
}

class cases::guarded(Boolean $extra = true) {
  # Declared only when $extra holds.
  if $extra {
    file { '/etc/guarded.conf':
      ensure => file,
    }

    exec { 'beside-guarded':
      command => '/bin/true',
    }
  }

  exec { 'uses-guarded':
    command => '/bin/true',
  }
}

class cases::computed(String $home = '/srv/app') {
  $local = "${home}/local"

  # Titles computed from a parameter, and from a local variable.
  file { "${home}/app.rc":
    ensure => file,
  }

  file { $local:
    ensure => directory,
  }

  exec { 'uses-rc':
    command => '/bin/true',
  }
}
