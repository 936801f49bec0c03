# Fixture: rules of the detector that hold pairs back (detector/doc.go,
# rules 6, 12 and 14, the last for an order and for a refresh)
# on a real run, with the faults that they must not hide.
#
# Rule 12. Exec['install-tool'] installs a script with mode 0775;
# File['/usr/local/lib/near_rules'] then takes the group write bit off every
# file below it (recurse, mode go-w), as hardening modules do to /usr/bin.
# Exec['run-tool'] runs the script, unordered with the File. It runs as
# root, and the script stays executable: both orders run it the same way.
# Held back, not a fault.
#
# Rule 14. Augeas['fsmove-svc'] adds the service fsmove-svc (9999/tcp) to
# /etc/services. Exec['lookup-ssh'] looks up another service there (the
# minimal image has none by that name: it accepts either answer): both
# orders give it the same answer. Held back, not a fault.
#
# Expected finding: Exec['lookup-svc'] looks up fsmove-svc itself, and
# nothing orders it after the Augeas: in the other order getent finds no
# such service and the Exec fails. MOR Augeas['fsmove-svc'] ->
# Exec['lookup-svc'].
#
# Rule 14 for a refresh. Exec['refresh-ssh'] and Exec['refresh-svc'] are
# refreshonly, run because File['/etc/near_rules.trigger'] notifies them,
# and follow the Augeas without being notified by it. refresh-ssh looks up
# another service: a refresh after the Augeas would look that up again and
# find the same. Held back, not a fault. Expected finding: refresh-svc looks
# up fsmove-svc itself, so a change of that entry needs it run again: MN
# Augeas['fsmove-svc'] -> Exec['refresh-svc'].
#
# Rule 6. Package['uuid-runtime'] installs the package, whose postinst
# makes the system user and group uuidd (adduser). Every resource after it
# that looks an owner up reads /etc/passwd and /etc/group, which the
# package wrote: such a pair is held back, as for
# File['/var/lib/near_rules_daemon'], whose owner daemon the node had
# before the apply. Expected finding: File['/var/lib/near_rules_uuidd']
# names uuidd, which no User manages and nothing orders after the
# Package: in the other order Puppet cannot find the user and the File
# fails. MOR Package['uuid-runtime'] -> File['/var/lib/near_rules_uuidd'].
# (Unordered resources apply in manifest order: the Package comes first.)
class near_rules {
  exec { 'install-tool':
    command => "/bin/sh -c 'mkdir -p /usr/local/lib/near_rules && printf \"#!/bin/sh\\nexit 0\\n\" >/usr/local/lib/near_rules/tool && chmod 0775 /usr/local/lib/near_rules/tool'",
    creates => '/usr/local/lib/near_rules/tool',
  }

  file { '/usr/local/lib/near_rules':
    ensure  => directory,
    recurse => true,
    mode    => 'go-w',
    require => Exec['install-tool'],
  }

  exec { 'run-tool':
    command => '/usr/local/lib/near_rules/tool',
    require => Exec['install-tool'],
  }

  augeas { 'fsmove-svc':
    context => '/files/etc/services',
    changes => [
      'set service-name[last()+1] fsmove-svc',
      'set service-name[last()]/port 9999',
      'set service-name[last()]/protocol tcp',
    ],
    onlyif  => "match service-name[. = 'fsmove-svc'] size == 0",
  }

  exec { 'lookup-ssh':
    command => "/bin/sh -c '/usr/bin/getent services ssh || true'",
  }

  exec { 'lookup-svc':
    command => '/usr/bin/getent services fsmove-svc',
  }

  file { '/etc/near_rules.trigger':
    ensure  => file,
    content => "near_rules\n",
    notify  => Exec['refresh-ssh', 'refresh-svc'],
  }

  exec { 'refresh-ssh':
    command     => "/bin/sh -c '/usr/bin/getent services ssh || true'",
    refreshonly => true,
    require     => Augeas['fsmove-svc'],
  }

  exec { 'refresh-svc':
    command     => '/usr/bin/getent services fsmove-svc',
    refreshonly => true,
    require     => Augeas['fsmove-svc'],
  }

  package { 'uuid-runtime':
    ensure => installed,
  }

  file { '/var/lib/near_rules_uuidd':
    ensure => directory,
    owner  => 'uuidd',
    group  => 'uuidd',
  }

  file { '/var/lib/near_rules_daemon':
    ensure => directory,
    owner  => 'daemon',
  }
}
