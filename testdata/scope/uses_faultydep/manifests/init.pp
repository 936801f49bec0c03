# A clean module: its own File and the Exec that reads it are ordered. It
# includes faultydep (given with --modulepath), whose own MOR is the
# dependency's fault, not this module's.
class uses_faultydep {
  include faultydep

  file { '/etc/uses_faultydep.conf':
    ensure  => file,
    content => "from=uses_faultydep\n",
  }

  exec { 'uses_faultydep-read':
    command => '/bin/cat /etc/uses_faultydep.conf',
    require => File['/etc/uses_faultydep.conf'],
  }
}
