# Fixture: a daemon whose start fails in the container (coverage, systemd
# mode only).
#
# The unit is Type=simple: "systemctl start" returns once the main process
# is forked, so Puppet counts the start a success, and the daemon then
# exits 3 before it reads its configuration (as a daemon that cannot bind
# its port or find its device does). No missing notifier toward it can be
# seen, and File['/etc/cov_startfails.conf'] does not notify it: the
# analysis is incomplete. Expected: no finding, exit 4, the report naming
# Service['cov-startfails'] with the journal's reason.
class cov_startfails {
  file { '/etc/cov_startfails.conf':
    ensure  => file,
    content => "port=1\n",
    before  => Service['cov-startfails'],
  }

  file { '/etc/systemd/system/cov-startfails.service':
    ensure  => file,
    content => @(UNIT),
      [Unit]
      Description=fsmove fixture cov_startfails: fails at start

      [Service]
      ExecStart=/bin/sh -c 'echo "cov-startfails: cannot bind port 1" >&2; exit 3'
      | UNIT
    notify  => Service['cov-startfails'],
  }

  service { 'cov-startfails':
    ensure => running,
  }
}
