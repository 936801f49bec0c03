# Fixture: non-idempotent resources (fsmove run --idempotence).
#
# The module is applied twice (the second apply compiles its catalog anew,
# as an agent's next run does); the second apply must change nothing, and
# each resource here changes or fails again. Expected NI findings:
# - Exec['stamp']: no creates, unless, onlyif or refreshonly, so it runs
#   (and writes /etc/ni_not_idempotent.stamp) on every apply;
# - File['/etc/ni_not_idempotent.time']: its content is computed when the
#   catalog is applied (a Deferred strftime), a new timestamp each time;
# - File['/etc/ni_not_idempotent.compiled']: its content is computed when
#   the catalog is compiled (a Timestamp in the string), a new one each
#   compilation;
# - File['/etc/ni_not_idempotent.conf'] and Exec['rewrite-conf'] fight:
#   the File writes one content, the Exec (whose guard looks for its own
#   content) another, so each apply undoes the other;
# - Exec['once']: it succeeds only when its file is missing, so it fails in
#   the second apply only;
# - Service['ni-stops']: a service that does not stay up (its status
#   command always says stopped, as a daemon that exits after its start),
#   so every apply starts it again. The base provider needs neither
#   systemd nor an init script: the same in both init modes.
class ni_not_idempotent {
  exec { 'stamp':
    command => '/bin/sh -c "date +%s%N > /etc/ni_not_idempotent.stamp"',
  }

  file { '/etc/ni_not_idempotent.time':
    ensure  => file,
    content => Deferred('strftime', ['%s%N']),
  }

  file { '/etc/ni_not_idempotent.compiled':
    ensure  => file,
    content => "compiled at ${Timestamp()}\n",
  }

  file { '/etc/ni_not_idempotent.conf':
    ensure  => file,
    content => "mode=file\n",
  }

  exec { 'rewrite-conf':
    command => '/bin/sh -c "echo mode=exec > /etc/ni_not_idempotent.conf"',
    unless  => '/bin/grep -qx mode=exec /etc/ni_not_idempotent.conf',
    require => File['/etc/ni_not_idempotent.conf'],
  }

  exec { 'once':
    command => '/bin/sh -c "test ! -e /etc/ni_not_idempotent.once && touch /etc/ni_not_idempotent.once"',
  }

  service { 'ni-stops':
    ensure   => running,
    provider => base,
    start    => '/bin/true',
    status   => '/bin/false',
  }
}
