# Fixture: missing notifier toward an Exec that runs only when notified.
#
# Exec['mn-refresh-build'] has refreshonly => true: it builds
# /var/lib/mn_refreshonly_exec.db from two files, as newaliases builds
# aliases.db, and Puppet runs it only when something notifies it.
# File['/etc/mn_refreshonly_exec.main'] notifies it, so it ran in this apply
# and read both files. File['/etc/mn_refreshonly_exec.extra'] is ordered
# before it but does not notify it: when a later apply changes only that
# file, the Exec does not run and the database keeps the old content.
#
# Expected finding: MN File['/etc/mn_refreshonly_exec.extra'] ->
# Exec['mn-refresh-build'].
#
# Near misses: File['/etc/mn_refreshonly_exec.main'] notifies the Exec.
# Exec['mn-refresh-plain'] reads File['/etc/mn_refreshonly_exec.plain'],
# which is ordered before it, but it is not refreshonly: a notification
# would not make it act again (its creates guard decides), so only the
# order is needed, and it is there.
#
# Rule 23 (detector/doc.go): Exec['mn-refresh-seed'] makes
# /etc/mn_refreshonly_exec.seed once (creates) and is ordered before the
# build, which reads the seed too without being notified by it: Puppet will
# not run the seed again, so no later change needs the notification. Held
# back.
#
# Rule 24: Exec['mn-refresh-post'] (refreshonly) reads the database the
# build makes, follows the build, and is notified by the build's one
# notifier, File['/etc/mn_refreshonly_exec.main']: every refresh that runs
# the build runs it after. Held back.
#
# Rule 25: the post step writes into /var/lib/mn_refreshonly_exec.d, which
# its File makes (ensure directory, nothing more) before it, without
# notifying it: all the File can change later is the directory's owner and
# mode, which do not make what the finished Exec wrote stale. Held back.
#
# Rule 26: Exec['mn-refresh-install'] (refreshonly) copies
# /etc/mn_refreshonly_exec.staged into place, and nothing notifies it: it
# never ran, so the trace shows no read of it, but its command names the
# staged file, which File['/etc/mn_refreshonly_exec.staged'] wrote.
# Expected finding: MN File['/etc/mn_refreshonly_exec.staged'] ->
# Exec['mn-refresh-install'] (in this run the staged file never reaches
# its place). Near misses: Exec['mn-refresh-idle'] (refreshonly, never
# run) names only a file nothing wrote and its program, which
# File['/usr/local/bin/mn_refreshonly_exec'] wrote: running a program is
# not reading its input.
class mn_refreshonly_exec {
  file { '/etc/mn_refreshonly_exec.main':
    ensure  => file,
    content => "main\n",
    notify  => Exec['mn-refresh-build'],
  }

  file { '/etc/mn_refreshonly_exec.extra':
    ensure  => file,
    content => "extra\n",
    before  => Exec['mn-refresh-build'],
  }

  exec { 'mn-refresh-build':
    command     => '/bin/sh -c "cat /etc/mn_refreshonly_exec.seed /etc/mn_refreshonly_exec.main /etc/mn_refreshonly_exec.extra >/var/lib/mn_refreshonly_exec.db"',
    refreshonly => true,
  }

  file { '/etc/mn_refreshonly_exec.plain':
    ensure  => file,
    content => "plain\n",
    before  => Exec['mn-refresh-plain'],
  }

  exec { 'mn-refresh-plain':
    command => '/bin/sh -c "cat /etc/mn_refreshonly_exec.plain >/var/lib/mn_refreshonly_exec.plain"',
    creates => '/var/lib/mn_refreshonly_exec.plain',
  }

  exec { 'mn-refresh-seed':
    command => '/bin/sh -c "echo seed >/etc/mn_refreshonly_exec.seed"',
    creates => '/etc/mn_refreshonly_exec.seed',
    before  => Exec['mn-refresh-build'],
  }

  exec { 'mn-refresh-post':
    command     => '/bin/sh -c "cat /var/lib/mn_refreshonly_exec.db >/var/lib/mn_refreshonly_exec.d/post"',
    refreshonly => true,
    subscribe   => File['/etc/mn_refreshonly_exec.main'],
    require     => [Exec['mn-refresh-build'], File['/var/lib/mn_refreshonly_exec.d']],
  }

  file { '/var/lib/mn_refreshonly_exec.d':
    ensure => directory,
  }

  file { '/etc/mn_refreshonly_exec.staged':
    ensure  => file,
    content => "staged\n",
  }

  exec { 'mn-refresh-install':
    command     => '/bin/cp -p /etc/mn_refreshonly_exec.staged /etc/mn_refreshonly_exec.live',
    refreshonly => true,
  }

  file { '/usr/local/bin/mn_refreshonly_exec':
    ensure  => file,
    content => "#!/bin/sh\nexit 0\n",
    mode    => '0755',
  }

  exec { 'mn-refresh-idle':
    command     => '/usr/local/bin/mn_refreshonly_exec /etc/mn_refreshonly_exec.untouched',
    refreshonly => true,
  }
}
