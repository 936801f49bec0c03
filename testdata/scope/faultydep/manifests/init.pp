# A dependency's own fault: Exec['faultydep-read'] reads the file that
# File['/etc/faultydep.conf'] writes, and nothing orders them (as in
# testdata/modules/mor_exec_reads_file). One MOR, wholly inside this module.
class faultydep {
  file { '/etc/faultydep.conf':
    ensure  => file,
    content => "from=faultydep\n",
  }

  exec { 'faultydep-read':
    command => '/bin/cat /etc/faultydep.conf',
  }
}
