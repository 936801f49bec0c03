# Fixture: a program model (detector/models.go) on a real run, with the
# fault it must not hide.
#
# apt-empty-config: apt reads an empty part of its configuration as no
# file. File['/etc/apt/preferences.d/near_models.pref'] makes an empty
# preferences part (ensure file, no content), and Exec['apt-policy'] runs
# apt-cache policy, unordered with it, which reads it: in the other order
# apt-cache finds no such part and prints the same pins. Held back, naming
# the model; with --no-models it is reported.
#
# gitolite-ssh-dir: gitolite's ssh-authkeys trigger makes ~/.ssh (0700)
# when it is missing. File['/var/lib/gitolite3/.ssh'] makes the directory
# (owner and mode only), and Exec['gitolite-setup'], unordered with it,
# runs the trigger, which writes authorized_keys in it: in the other order
# the trigger makes the directory and the File then sets its owner and
# mode. Held back, naming the model; with --no-models it is reported.
#
# Expected findings: File['/etc/apt/apt.conf.d/99near_models'] writes an
# option, which apt-cache and apt-config read, unordered with both: in the
# other order they run without it. MOR
# File['/etc/apt/apt.conf.d/99near_models'] -> Exec['apt-policy'] and ->
# Exec['apt-config']. And File['/var/lib/gitolite3/.ssh/authorized_keys']
# writes a key there, which the trigger then rewrites keeping it, unordered
# with the Exec: in the other order the File replaces gitolite's keys. The
# model is about the directory, not what is in it: MOR
# File['/var/lib/gitolite3/.ssh/authorized_keys'] -> Exec['gitolite-setup'].
class near_models {
  file { '/etc/apt/preferences.d/near_models.pref':
    ensure => file,
  }

  file { '/etc/apt/apt.conf.d/99near_models':
    ensure  => file,
    content => "Acquire::Retries \"3\";\n",
  }

  exec { 'apt-policy':
    command => '/usr/bin/apt-cache policy',
  }

  exec { 'apt-config':
    command => '/usr/bin/apt-config dump',
  }

  # After apt's parts above, so that only the Execs meet them.
  package { 'gitolite3':
    ensure  => installed,
    require => File['/etc/apt/preferences.d/near_models.pref', '/etc/apt/apt.conf.d/99near_models'],
  }

  user { 'gitolite3':
    ensure  => present,
    system  => true,
    home    => '/var/lib/gitolite3',
    shell   => '/bin/sh',
    require => Package['gitolite3'],
  }

  file { '/var/lib/gitolite3':
    ensure => directory,
    owner  => 'gitolite3',
    mode   => '0750',
  }

  file { '/var/lib/gitolite3/.ssh':
    ensure => directory,
    owner  => 'gitolite3',
    group  => 'gitolite3',
    mode   => '0700',
  }

  file { '/var/lib/gitolite3/admin.pub':
    ensure  => file,
    content => "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAeWKJb9xwi7l2QTHADeFeAThHIhfZ5FdcY6pZWGXnrR near_models-admin\n",
  }

  file { '/var/lib/gitolite3/.ssh/authorized_keys':
    ensure  => file,
    owner   => 'gitolite3',
    mode    => '0600',
    content => "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAeWKJb9xwi7l2QTHADeFeAThHIhfZ5FdcY6pZWGXnrR near_models-backup\n",
  }

  exec { 'gitolite-setup':
    command     => '/usr/bin/gitolite setup -pk /var/lib/gitolite3/admin.pub',
    user        => 'gitolite3',
    cwd         => '/var/lib/gitolite3',
    environment => ['HOME=/var/lib/gitolite3'],
    creates     => '/var/lib/gitolite3/.gitolite',
    require     => [Package['gitolite3'], File['/var/lib/gitolite3/admin.pub']],
  }
}
