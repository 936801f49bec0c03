# Fixture: near misses of non-idempotence (fsmove run --idempotence).
#
# Applied twice, the second apply changes nothing: the Exec is guarded by
# creates, the refreshonly Exec is notified only when the File changes
# (the first apply), and the Files' content is the same every time (one from
# the module's files/, by a puppet:///modules URL, which the second apply
# must serve as the first did).
# Expected: no finding.
class ni_idempotent {
  exec { 'make-marker':
    command => '/bin/sh -c "date +%s%N > /etc/ni_idempotent.marker"',
    creates => '/etc/ni_idempotent.marker',
  }

  file { '/etc/ni_idempotent.conf':
    ensure  => file,
    content => "stable=yes\n",
    notify  => Exec['reload-conf'],
  }

  file { '/etc/ni_idempotent.shipped':
    ensure => file,
    source => 'puppet:///modules/ni_idempotent/shipped.conf',
  }

  exec { 'reload-conf':
    command     => '/bin/sh -c "cat /etc/ni_idempotent.conf > /etc/ni_idempotent.loaded"',
    refreshonly => true,
  }
}
