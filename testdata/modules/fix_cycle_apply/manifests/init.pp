# Fixture: two edits of "fsmove fix" that make a dependency cycle only
# together, which Puppet finds when --verify applies the edited module.
#
# The module orders the service, then Exec['make-input'] (require). The
# daemon of fix-cycle-apply.service waits for /etc/fix_cycle_apply.conf,
# reads it once and keeps what it read. Exec['make-conf'] builds that file
# from what Exec['make-input'] made, ordered with neither:
#   - an expected MOR, Exec['make-input'] to Exec['make-conf'] (in the
#     other order make-conf finds no input);
#   - an expected MN, Exec['make-conf'] to Service['fix-cycle-apply'] (the
#     running daemon never sees a change of its configuration).
# Each edit alone is sound; both make service -> make-input -> make-conf
# ~> service, a cycle Puppet refuses. fsmove fix withdraws the MN's edit
# (a notification runs against the order the module wrote), applies the
# rest again, and keeps the MOR's: fixed.
#
# Near miss: Exec['wait'] reads the daemon's marker, and requires both.
class fix_cycle_apply {
  file { '/etc/systemd/system/fix-cycle-apply.service':
    ensure  => file,
    content => @(UNIT),
      [Unit]
      Description=fsmove fixture fix_cycle_apply

      [Service]
      ExecStart=/bin/sh -c 'while [ ! -s /etc/fix_cycle_apply.conf ]; do sleep 0.1; done; cat /etc/fix_cycle_apply.conf > /run/fix_cycle_apply.read; exec sleep infinity'
      | UNIT
    notify  => Service['fix-cycle-apply'],
  }

  service { 'fix-cycle-apply':
    ensure => running,
  }

  exec { 'make-input':
    command  => 'echo input=1 > /var/lib/fix_cycle_apply.input',
    provider => shell,
    require  => Service['fix-cycle-apply'],
  }

  exec { 'make-conf':
    command  => 'cp /var/lib/fix_cycle_apply.input /etc/fix_cycle_apply.conf',
    provider => shell,
  }

  # Waits (up to 30 s) until the daemon has read its configuration, so
  # that the read is in the trace.
  exec { 'wait':
    command  => 'i=0; while [ ! -s /run/fix_cycle_apply.read ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; test -s /run/fix_cycle_apply.read',
    provider => shell,
    require  => [Exec['make-conf'], Service['fix-cycle-apply']],
  }
}
