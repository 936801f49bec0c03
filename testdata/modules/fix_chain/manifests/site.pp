# One site: a file and an Exec that reads it, unordered (see init.pp).
define fix_chain::site () {
  file { "/etc/fix_chain-${title}.conf":
    ensure  => file,
    content => "site=${title}\n",
  }

  exec { "read-${title}":
    command   => "/bin/cat /etc/fix_chain-${title}.conf",
    logoutput => true,
  }
}
