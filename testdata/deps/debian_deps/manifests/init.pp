# ensure_packages is stdlib's; procps is in the image already, so the
# apply needs no network.
class debian_deps {
  ensure_packages(['procps'])

  concat { '/etc/fsmove-deps.conf':
    ensure => present,
    mode   => '0644',
  }
  concat::fragment { 'fsmove-deps header':
    target  => '/etc/fsmove-deps.conf',
    content => "# written by concat\n",
    order   => '01',
  }
  concat::fragment { 'fsmove-deps body':
    target  => '/etc/fsmove-deps.conf',
    content => "deps = ok\n",
    order   => '10',
  }
}
