# A write whose path is rewritten while the open waits on a lease
# (files/pathrace.pl), and a read of the file with no ordering to the
# writer (plain Execs, as in hostile::forge, so that the writer comes
# first). The file is made first, by a File both require. fsmove's
# profile refuses the lease: the missing ordering must be found.
class hostile::pathrace {
  file { '/tmp/hostile-race':
    ensure  => file,
    content => "made\n",
  }
  exec { 'hostile-pathrace':
    command   => 'perl /usr/local/lib/hostile/pathrace.pl',
    path      => ['/usr/bin', '/bin'],
    logoutput => true,
    require   => [File['/usr/local/lib/hostile'], File['/tmp/hostile-race']],
  }
  exec { 'pathrace-other':
    command => '/bin/true',
  }
  exec { 'pathrace-read':
    command => '/bin/cat /tmp/hostile-race',
    require => [Exec['pathrace-other'], File['/tmp/hostile-race']],
  }
}
