# A file created through a directory fd from open_tree(2)
# (files/opentree.rb); Exec[opentree-read] reads it with no ordering to the
# writer (plain Execs, as in hostile::forge). The model never saw that fd
# opened: the write cannot be placed, and the analysis must be incomplete.
class hostile::opentree {
  exec { 'hostile-opentree':
    command   => 'ruby /usr/local/lib/hostile/opentree.rb',
    path      => ['/usr/bin', '/bin'],
    logoutput => true,
    require   => File['/usr/local/lib/hostile'],
  }
  exec { 'opentree-other':
    command => '/bin/true',
  }
  exec { 'opentree-read':
    command => '/bin/cat /tmp/hostile-ot/made',
    require => Exec['opentree-other'],
  }
}
