# Fixture: a Service that manages a systemd timer (issue 50, class 5:
# systemd's work for a request is the requester's).
#
# Service['mn-tick.timer'] starts a timer; the timer starts mn-tick.service
# (its default Unit=) one second later, and that oneshot service reads
# /etc/mn_systemd_timer.conf. No Service manages mn-tick.service itself:
# systemd says the timer triggers it (TriggeredBy=), so its work is the
# timer Service's.
#
# Expected finding: MN File['/etc/systemd/system/mn-tick.timer'] ->
# Service['mn-tick.timer']. The File is ordered before the Service but does
# not notify it: systemd (PID 1) read the timer's unit file for the
# Service's start, and a later change of it is not seen until systemd
# reloads the unit and the timer restarts (Puppet's systemd provider runs
# daemon-reload before it restarts a unit whose file changed).
#
# Expected finding: MOR File['/etc/systemd/system/mn-tick.service'] ->
# Service['mn-tick.timer']. The service's unit file is declared before the
# Service and unordered with it (manifest order applies it first). systemd
# loads the unit a timer triggers when it loads the timer, and refuses to
# start a timer whose unit is not loaded: in the other order the Service
# fails.
#
# Near misses: the timer's drop-in, which systemd reads too, notifies the
# Service. /etc/mn_systemd_timer.conf is read by the triggered service's
# process and is ordered before the Service without notifying it: no MN,
# since the service reads it anew each time the timer triggers it, and a
# restart of the timer does not restart the service.
#
# Exec['mn-tick-ran'] waits until the triggered service has run, so that
# its reads happen inside the traced apply.
class mn_systemd_timer {
  file { '/etc/mn_systemd_timer.conf':
    ensure  => file,
    content => "tick=1\n",
    before  => Service['mn-tick.timer'],
  }

  file { '/etc/systemd/system/mn-tick.service':
    ensure  => file,
    content => @(UNIT),
      [Unit]
      Description=fsmove fixture mn_systemd_timer, started by its timer

      [Service]
      Type=oneshot
      ExecStart=/bin/sh -c 'cat /etc/mn_systemd_timer.conf >/run/mn-tick.done'
      | UNIT
  }

  file { '/etc/systemd/system/mn-tick.timer':
    ensure  => file,
    content => @(UNIT),
      [Unit]
      Description=fsmove fixture mn_systemd_timer

      [Timer]
      OnActiveSec=1
      AccuracySec=1ms

      [Install]
      WantedBy=timers.target
      | UNIT
    before  => Service['mn-tick.timer'],
  }

  file { '/etc/systemd/system/mn-tick.timer.d':
    ensure => directory,
  }

  file { '/etc/systemd/system/mn-tick.timer.d/override.conf':
    ensure  => file,
    content => "[Timer]\nRandomizedDelaySec=0\n",
    notify  => Service['mn-tick.timer'],
  }

  service { 'mn-tick.timer':
    ensure => running,
  }

  exec { 'mn-tick-ran':
    command => '/bin/sh -c \'i=0; while [ ! -s /run/mn-tick.done ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; test -s /run/mn-tick.done\'',
    require => Service['mn-tick.timer'],
  }
}
