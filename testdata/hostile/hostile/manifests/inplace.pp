# A file changed in place through a shared writable mapping, with no write
# call (files/inplace.pl), and a read of it with no ordering to the writer
# (plain Execs, as in hostile::forge, so that the writer comes first). The
# file is made first, by a File both require. An open for writing of a
# file it does not create or truncate may change it in place: the missing
# ordering must be found.
class hostile::inplace {
  file { '/tmp/hostile-inplace':
    ensure  => file,
    content => "made by puppet\n",
  }
  exec { 'hostile-inplace':
    command   => 'perl /usr/local/lib/hostile/inplace.pl',
    path      => ['/usr/bin', '/bin'],
    logoutput => true,
    require   => [File['/usr/local/lib/hostile'], File['/tmp/hostile-inplace']],
  }
  exec { 'inplace-other':
    command => '/bin/true',
  }
  exec { 'inplace-read':
    command => '/bin/cat /tmp/hostile-inplace',
    require => [Exec['inplace-other'], File['/tmp/hostile-inplace']],
  }
}
