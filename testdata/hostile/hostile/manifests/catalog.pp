# The catalog and graph that fsmove reads, rewritten during the apply
# (files/catalog.sh): Exec[hostile-catalog] writes a file that
# Exec[catalog-read] reads, with no ordering between them, then adds that
# ordering to Puppet's cached catalog and to its expanded_relationships.dot.
# fsmove reads the catalog compiled before any resource ran: the missing
# ordering must be found, and the run called tampered (plain Execs, as in
# hostile::forge, so that the writer comes first).
class hostile::catalog {
  exec { 'hostile-catalog':
    command   => 'sh /usr/local/lib/hostile/catalog.sh',
    path      => ['/usr/bin', '/bin'],
    logoutput => true,
    require   => File['/usr/local/lib/hostile'],
  }
  exec { 'catalog-other':
    command => '/bin/true',
  }
  exec { 'catalog-read':
    command => '/bin/cat /tmp/hostile-catalog',
    require => Exec['catalog-other'],
  }
}
