# A directory fd passed over SCM_RIGHTS to a child, which creates a file
# through it (files/scmrights.rb); Exec[scmrights-read] reads the file with
# no ordering to the writer (plain Execs, as in hostile::forge). The model
# never saw the received fd opened: the write cannot be placed, and the
# analysis must be incomplete.
class hostile::scmrights {
  exec { 'hostile-scmrights':
    command   => 'ruby /usr/local/lib/hostile/scmrights.rb',
    path      => ['/usr/bin', '/bin'],
    logoutput => true,
    require   => File['/usr/local/lib/hostile'],
  }
  exec { 'scmrights-other':
    command => '/bin/true',
  }
  exec { 'scmrights-read':
    command => '/bin/cat /tmp/hostile-scm/made',
    require => Exec['scmrights-other'],
  }
}
