# Fixture: missing notifier (a directory a service uses).
#
# fsmove-dirsvc is a tiny daemon (files/fsmove-dirsvc, started by
# /etc/init.d/fsmove-dirsvc as user daemon): when it starts it appends to
# /var/log/mn_service_directory/dirsvc.log and writes its pid to
# /var/lib/mn_service_directory/state. File['/var/log/mn_service_directory']
# creates its log directory (owner daemon, mode 0750) and is ordered before
# Service['fsmove-dirsvc'], but does not notify it: when a later run changes
# the directory (its owner or mode, or replaces it), the running daemon keeps
# its open log and its old view of the directory until something restarts
# it, so the change only takes effect at some unrelated restart.
#
# With systemd as PID 1, systemd runs the init script through the unit its
# sysv generator makes (fsmove-dirsvc.service); with --init none Puppet
# runs it itself (the "debian" provider). The daemon first starts in
# Service['fsmove-dirsvc'], and the init script returns only once the daemon
# has written to both directories.
#
# Expected finding: MN File['/var/log/mn_service_directory'] ->
# Service['fsmove-dirsvc'].
#
# Near miss: File['/var/lib/mn_service_directory'] is used the same way but
# notifies the service, so it is not reported. The daemon and its init
# script notify the service too.
#
# Held back (rule 15): the daemon also reads its settings from
# /etc/mn_service_directory.d, listing the directory and reading each file.
# File['/etc/mn_service_directory.d'] manages only that the directory exists
# and its mode, and does not notify the service: the daemon only read the
# directory, the file in it notifies the service itself, and a new mode of
# the directory changes nothing the running daemon keeps. So that MN is held
# back, unlike the log directory's, which the daemon writes in.
#
# Expected finding (rule 20): File['/etc/mn_service_directory.d/late.conf']
# is declared after the service, unordered with it, and does not notify it.
# The run applies it after the daemon started (manifest order): the daemon
# listed its include directory and read every file there, but not this one,
# which did not exist yet; it runs without it until something restarts it.
# MN File['/etc/mn_service_directory.d/late.conf'] -> Service['fsmove-dirsvc'].
class mn_service_directory {
  file { '/usr/local/sbin/fsmove-dirsvc':
    ensure => file,
    mode   => '0755',
    source => 'puppet:///modules/mn_service_directory/fsmove-dirsvc',
  }

  file { '/etc/init.d/fsmove-dirsvc':
    ensure => file,
    mode   => '0755',
    source => 'puppet:///modules/mn_service_directory/fsmove-dirsvc.init',
  }

  file { '/var/log/mn_service_directory':
    ensure => directory,
    owner  => 'daemon',
    group  => 'daemon',
    mode   => '0750',
  }

  file { '/var/lib/mn_service_directory':
    ensure => directory,
    owner  => 'daemon',
    group  => 'daemon',
    mode   => '0750',
    notify => Service['fsmove-dirsvc'],
  }

  file { '/etc/mn_service_directory.d':
    ensure => directory,
    mode   => '0755',
  }

  file { '/etc/mn_service_directory.d/greeting.conf':
    ensure  => file,
    content => "greeting = hello\n",
    notify  => Service['fsmove-dirsvc'],
  }

  service { 'fsmove-dirsvc':
    ensure    => running,
    require   => [File['/var/log/mn_service_directory'], File['/etc/mn_service_directory.d']],
    subscribe => [File['/usr/local/sbin/fsmove-dirsvc'], File['/etc/init.d/fsmove-dirsvc']],
  }

  file { '/etc/mn_service_directory.d/late.conf':
    ensure  => file,
    content => "farewell = goodbye\n",
  }
}
