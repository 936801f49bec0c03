# Fixture: a missing notifier whose edit would make a dependency cycle,
# which "fsmove fix" withdraws with the reason (it writes nothing).
#
# The daemon of fix-cycle.service reads /etc/fix_cycle.conf lazily: it
# waits for the file after it starts, reads it once, and keeps what it read
# (a marker in /run says it did). The module orders the file after the
# service (require => Service['fix-cycle']), so in this run the daemon
# read the file the module wrote, and a change of the file is never seen
# by the running daemon: an expected MN, File['/etc/fix_cycle.conf'] to
# Service['fix-cycle']. Its fix, notify => Service['fix-cycle'], would order
# the file before the service as well: with the require, a dependency cycle
# Puppet refuses. Which order the module wants is its maintainer's call:
# fsmove fix writes no edit and says why.
#
# Near miss: the unit file, which systemd reads, notifies the service.
class fix_cycle {
  file { '/etc/systemd/system/fix-cycle.service':
    ensure  => file,
    content => @(UNIT),
      [Unit]
      Description=fsmove fixture fix_cycle

      [Service]
      ExecStart=/bin/sh -c 'while [ ! -s /etc/fix_cycle.conf ]; do sleep 0.1; done; cat /etc/fix_cycle.conf > /run/fix_cycle.read; exec sleep infinity'
      | UNIT
    notify  => Service['fix-cycle'],
  }

  service { 'fix-cycle':
    ensure => running,
  }

  file { '/etc/fix_cycle.conf':
    ensure  => file,
    content => "lazy=1\n",
    require => Service['fix-cycle'],
  }

  # Waits (up to 30 s) until the daemon has read the file, so that the
  # read is in the trace.
  exec { 'fix-cycle-wait':
    command  => 'i=0; while [ ! -s /run/fix_cycle.read ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; test -s /run/fix_cycle.read',
    provider => shell,
    require  => File['/etc/fix_cycle.conf'],
  }
}
