# Fixture: a resource Puppet skips because a dependency failed (coverage).
#
# Exec['fail'] fails; File['/etc/cov_skipped.conf'] requires it, so Puppet
# skips it and does none of its work: nothing of it was checked. Expected:
# the run fails (Puppet failed) and the report's coverage lists
# File['/etc/cov_skipped.conf'] as not checked, skipped.
class cov_skipped {
  exec { 'fail':
    command => '/bin/false',
  }

  file { '/etc/cov_skipped.conf':
    ensure  => file,
    content => "skipped=1\n",
    require => Exec['fail'],
  }
}
