# Fixture: missing ordering relationship (write/write: overwriting a file
# another resource writes).
#
# Exec['write-conf'] writes /etc/mor_overwrite_conffile.conf (no `creates`,
# so it runs every time) and File['/etc/mor_overwrite_conffile.conf'] writes
# the same file, unordered: whichever runs last decides the content.
# Expected finding: MOR Exec['write-conf'] ->
# File['/etc/mor_overwrite_conffile.conf'] (the producer is the resource that
# ran first).
#
# Near miss, held back: Package['netbase'] ships /etc/rpc as a dpkg conffile
# and File['/etc/rpc'] replaces it, unordered. dpkg looks for the conffile
# before it installs it (the trace shows the lookup fail), and with
# Puppet's default --force-confold it keeps a file it finds there (leaving
# its own as /etc/rpc.dpkg-dist): in the other order the File's content
# stays all the same, and dpkg treats the file as locally changed in both.
# The detector's rule 13 holds the pair back.
#
# Near miss: File['/etc/ethertypes'] replaces another conffile of the same
# package but requires the Package, so it is not reported.
class mor_overwrite_conffile {
  package { 'netbase':
    ensure => installed,
  }

  file { '/etc/rpc':
    ensure  => file,
    content => "# written by the fsmove fixture mor_overwrite_conffile\nportmapper 100000 portmap sunrpc rpcbind\n",
  }

  file { '/etc/ethertypes':
    ensure  => file,
    content => "# written by the fsmove fixture mor_overwrite_conffile\nIPv4 0800 ip ip4\n",
    require => Package['netbase'],
  }

  exec { 'write-conf':
    command => "/bin/sh -c 'echo mode=exec > /etc/mor_overwrite_conffile.conf'",
  }

  file { '/etc/mor_overwrite_conffile.conf':
    ensure  => file,
    content => "mode=file\n",
  }
}
