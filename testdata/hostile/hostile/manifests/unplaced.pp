# Writes through a /proc fd link and after a chroot (files/unplaced.pl),
# each read with no ordering to the writer (plain Execs, as in
# hostile::forge, so that the writer comes first).
class hostile::unplaced {
  exec { 'hostile-unplaced':
    command   => 'perl /usr/local/lib/hostile/unplaced.pl',
    path      => ['/usr/bin', '/bin'],
    logoutput => true,
    require   => File['/usr/local/lib/hostile'],
  }
  exec { 'unplaced-read-procfd':
    command => '/bin/cat /tmp/hostile-fd/made',
  }
  exec { 'unplaced-read-chroot':
    command => '/bin/cat /tmp/hostile-jail/jailed',
  }
}
