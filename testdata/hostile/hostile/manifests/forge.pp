# Fake Puppet markers (files/forge.sh): the write between them is
# hostile-forge's, read by forge-read with no ordering between the two
# (plain Execs, not hostile::attack: a defined type's resources come last
# in Puppet's order, and the write must come before the read).
class hostile::forge {
  exec { 'hostile-forge':
    command   => 'sh /usr/local/lib/hostile/forge.sh',
    path      => ['/usr/bin', '/bin'],
    logoutput => true,
    require   => File['/usr/local/lib/hostile'],
  }
  exec { 'forge-other':
    command => '/bin/true',
  }
  exec { 'forge-read':
    command => '/bin/cat /tmp/hostile-forged',
    require => Exec['forge-other'],
  }
}
