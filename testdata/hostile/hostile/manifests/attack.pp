# One attack: a script of files/ run by an Exec that logs its output.
define hostile::attack (String $command) {
  exec { "hostile-${title}":
    command   => $command,
    path      => ['/usr/bin', '/bin', '/usr/sbin', '/sbin'],
    logoutput => true,
    timeout   => 120,
    require   => File['/usr/local/lib/hostile'],
  }
}
