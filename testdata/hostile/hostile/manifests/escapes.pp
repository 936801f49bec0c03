# Terminal escapes in what fsmove prints: a path (and so a title) that
# retitles the terminal and recolours the report, read by an Exec with such
# a title too and no ordering between them (a missing ordering relationship
# that names both), and a failing Exec whose title does the same in
# Puppet's error line.
class hostile::escapes {
  $evil = "/tmp/hostile-\u{1b}]0;pwned\u{7}\u{1b}[31mred"
  file { $evil:
    content => "x\n",
  }
  exec { "read \u{1b}[2J${evil}":
    command => "/bin/cat '${evil}'",
  }
  exec { "fail \u{1b}]0;pwned\u{7}\u{1b}[31mred":
    command => '/bin/false',
  }
}
