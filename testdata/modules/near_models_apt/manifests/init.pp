# Fixture: the program models apt-key-gpgconf and apt-update-caches
# (detector/models.go) on a real run, with the faults they must not hide.
# Unordered resources apply in manifest order: the Package comes first.
#
# Package['gnupg'] installs gnupg; Exec['apt-update'] runs apt-get update,
# unordered with it. The update meets the install on three things: apt-key
# (Debian 12) runs gnupg's gpgconf --kill all at its cleanup because it
# is now installed (apt-key-gpgconf: without it, apt-key skips that, and
# nothing is left either way); it reads dpkg's status and rewrites apt's
# binary cache, which the install changed (apt-update-caches: the lists it
# fetches do not depend on what is installed, and every apt run rebuilds
# the cache when it is stale). Held back, naming the models: MOR
# Package['gnupg'] -> Exec['apt-update']; with --no-models it is reported.
#
# Expected findings: Exec['apt-simulate'] simulates an install of gnupg,
# which reads what dpkg's status says is installed (in the other order it
# would plan the install): not the update the model is about. MOR
# Package['gnupg'] -> Exec['apt-simulate']. Exec['gpgconf-dirs'] runs
# gpgconf itself, not through apt-key (in the other order it is missing
# and the Exec fails): MOR Package['gnupg'] -> Exec['gpgconf-dirs'].
class near_models_apt {
  package { 'gnupg':
    ensure => installed,
  }

  # Before the update, so that the lists it reads are the ones it finds
  # whatever the mirror holds today.
  exec { 'apt-simulate':
    command => '/usr/bin/apt-get -s install gnupg',
    before  => Exec['apt-update'],
  }

  exec { 'gpgconf-dirs':
    command => '/usr/bin/gpgconf --list-dirs',
  }

  exec { 'apt-update':
    command => '/usr/bin/apt-get update',
  }
}
