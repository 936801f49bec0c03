# Fixture: a missing notifier that another one shown already covers
# (rule 27, refreshed-through).
#
# mn-through.service reads /etc/mn_through.conf when it starts (in an
# ExecStartPre, which systemd runs to its end before the start returns).
# File['/etc/mn_through.conf'] is ordered before Service['mn-through'] but
# does not notify it. Expected finding: MN File['/etc/mn_through.conf'] ->
# Service['mn-through'].
#
# Exec['mn-through-check'] (refreshonly) checks the service's settings
# after each of its starts: it subscribes to Service['mn-through'] and
# reads /etc/mn_through.conf too, so the File must notify it as much as
# the service. That is the one fault already shown: its fix, notify =>
# Service['mn-through'], restarts the service, and Puppet passes the
# service's refresh on to the check, after it. Held back: MN
# File['/etc/mn_through.conf'] -> Exec['mn-through-check'].
#
# Near miss: File['/etc/mn_through.check'], which only the check reads,
# is ordered before it and does not notify it, and nothing the File
# notifies refreshes the check: a second expected finding, MN
# File['/etc/mn_through.check'] -> Exec['mn-through-check'].
class mn_refreshed_through {
  file { '/etc/mn_through.conf':
    ensure  => file,
    content => "through=1\n",
    before  => Service['mn-through'],
  }

  file { '/etc/systemd/system/mn-through.service':
    ensure  => file,
    content => @(UNIT),
      [Unit]
      Description=fsmove fixture mn_refreshed_through

      [Service]
      ExecStartPre=/bin/cat /etc/mn_through.conf
      ExecStart=/bin/sleep infinity
      | UNIT
    notify  => Service['mn-through'],
  }

  service { 'mn-through':
    ensure => running,
  }

  file { '/etc/mn_through.check':
    ensure  => file,
    content => "through\n",
    before  => Exec['mn-through-check'],
  }

  exec { 'mn-through-check':
    command     => '/bin/cat /etc/mn_through.conf /etc/mn_through.check',
    refreshonly => true,
    subscribe   => Service['mn-through'],
  }
}
