# Fixture: missing ordering relationship (write/write: overwriting a file
# another resource writes).
#
# Package['netbase'] ships /etc/rpc as a dpkg conffile: dpkg unpacks it as
# /etc/rpc.dpkg-new and renames that over /etc/rpc when it configures the
# package. File['/etc/rpc'] replaces the file with its own content, and
# nothing orders the two. Manifest order makes this run end with the File's
# content. In the other order the File writes /etc/rpc first and dpkg then
# finds a file it did not install at one of its conffile paths: with
# Puppet's --force-confold it keeps it and leaves /etc/rpc.dpkg-dist, on a
# later upgrade it prompts or replaces it, and the outcome depends on dpkg's
# conffile rules instead of the manifest.
#
# Exec['write-conf'] writes /etc/mor_overwrite_conffile.conf (no `creates`,
# so it runs every time) and File['/etc/mor_overwrite_conffile.conf'] writes
# the same file, unordered: whichever runs last decides the content.
#
# Expected findings: MOR Package['netbase'] -> File['/etc/rpc'] and
# MOR Exec['write-conf'] -> File['/etc/mor_overwrite_conffile.conf'] (the
# producer is the resource that ran first).
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
