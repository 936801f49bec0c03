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
# Expected finding: Package['netbase'] ships /etc/rpc as a dpkg conffile and
# File['/etc/rpc'] replaces it, unordered. dpkg looks for the conffile before
# it installs it (the trace shows the lookup fail), but that is no
# ensure-present guard: in the other order dpkg finds the File's /etc/rpc,
# keeps it only as a conffile changed locally (its own beside it as
# /etc/rpc.dpkg-dist, asked about at every upgrade), and a file that is not a
# conffile it would replace. MOR Package['netbase'] -> File['/etc/rpc'],
# with the weakest confidence, guarded: in this run's other order the File's
# content stays (Puppet's --force-confold), and dpkg leaves its own as
# /etc/rpc.dpkg-dist (detector rule 13 holds back only producers that really
# leave what they find).
#
# Near miss, held back (rule 13): Exec['default-conf'] writes a default
# /etc/mor_overwrite_conffile.default only when there is none (creates), and
# File['/etc/mor_overwrite_conffile.default'] replaces it, unordered. In the
# other order the Exec finds the File's and does not run: the content is the
# File's either way.
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

  exec { 'default-conf':
    command => "/bin/sh -c 'echo mode=default > /etc/mor_overwrite_conffile.default'",
    creates => '/etc/mor_overwrite_conffile.default',
  }

  file { '/etc/mor_overwrite_conffile.default':
    ensure  => file,
    content => "mode=file\n",
  }
}
