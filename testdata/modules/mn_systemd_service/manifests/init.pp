# Fixture: missing notifier (configuration file of a systemd service).
#
# The container boots systemd, so the service's processes are systemd's
# children, not Puppet's: fsmove ties them to Service['mn-systemd'] by the
# cgroup of the unit they run in (system.slice/mn-systemd.service). The
# unit checks its configuration before it starts (ExecStartPre, as
# "nginx -t" does) and its daemon reads it again.
#
# File['/etc/mn_systemd_service.conf'] is ordered before the Service but does
# not notify it: a later change of the file would leave the daemon running
# with the old settings. Expected finding: an MN from that File to the
# Service.
#
# File['/etc/default/mn-systemd'] is the unit's EnvironmentFile: systemd
# itself (PID 1) reads it when it starts the unit, and passes its settings
# to the daemon, which never opens it. It too is ordered before the Service
# and does not notify it: a second expected MN.
#
# Near misses: File['/etc/mn_systemd_service.d/extra.conf'], which the
# daemon reads too, notifies the Service; the unit file, which systemd reads
# for the unit, notifies it.
#
# A unit that is PartOf= another is stopped and restarted with it:
# mn-systemd-helper.service, which mn-systemd.service wants, is part of it,
# and its daemon reads /etc/mn_systemd_helper.conf. The File that writes it
# is ordered before Service['mn-systemd'] and does not notify it: a third
# expected MN, to Service['mn-systemd'], though the helper's processes run
# in the cgroup of another unit.
#
# A Service may name its unit by an alias (Service['mysql'] on Debian,
# whose unit is mariadb.service): Service['mn-alias'] starts
# mn-systemd-real.service through the alias mn-alias.service (a symlink in
# /etc/systemd/system, as "systemctl enable" makes for Alias=), whose
# daemon reads /etc/mn_alias.conf. The File that writes it is ordered before
# the Service and does not notify it: a fourth expected MN, to
# Service['mn-alias'], though its processes run in the cgroup of
# mn-systemd-real.service.
#
# A unit that sandboxes itself (ProtectSystem=, PrivateTmp=, as Debian's
# redis, chrony and pdns units do) runs in a mount namespace: systemd's
# child for the unit binds "/" at /run/systemd/unit-root, chroots into it
# and execs the daemon, whose names are the host's. (In a container
# without CAP_SYS_ADMIN the mount namespace needs a user namespace,
# PrivateUsers=, as redis's unit has; without one systemd runs the unit
# unsandboxed.) mn-sandboxed's daemon
# reads /etc/mn_sandboxed.conf; the File that writes it is ordered before
# Service['mn-sandboxed'] and does not notify it: a fifth expected MN. Its
# near miss: /etc/mn_sandboxed.extra, read the same way, notifies it.
#
# Tracing ends when Puppet exits, and "systemctl start" returns as soon as a
# simple service's main process is forked: a read in ExecStart may come
# after the trace's end (it did, once in CI, for mn-alias). So each read
# this fixture needs happens in an ExecStartPre, which systemd runs to its
# end before the start returns, and mn-systemd is ordered After= its helper
# so that the helper's start is over before mn-systemd's is.
class mn_systemd_service {
  file { '/etc/mn_systemd_service.conf':
    ensure  => file,
    content => "greeting=hello\n",
    before  => Service['mn-systemd'],
  }

  file { '/etc/default/mn-systemd':
    ensure  => file,
    content => "GREETING=hello\n",
    before  => Service['mn-systemd'],
  }

  file { '/etc/mn_systemd_service.d':
    ensure => directory,
  }

  file { '/etc/mn_systemd_service.d/extra.conf':
    ensure  => file,
    content => "extra=1\n",
    notify  => Service['mn-systemd'],
  }

  file { '/etc/systemd/system/mn-systemd.service':
    ensure  => file,
    content => @(UNIT),
      [Unit]
      Description=fsmove fixture mn_systemd_service
      Wants=mn-systemd-helper.service
      After=mn-systemd-helper.service

      [Service]
      EnvironmentFile=/etc/default/mn-systemd
      ExecStartPre=/bin/cat /etc/mn_systemd_service.conf
      ExecStart=/bin/sh -c 'cat /etc/mn_systemd_service.conf /etc/mn_systemd_service.d/extra.conf >/dev/null; exec sleep infinity'

      [Install]
      WantedBy=multi-user.target
      | UNIT
    notify  => Service['mn-systemd'],
  }

  file { '/etc/mn_systemd_helper.conf':
    ensure  => file,
    content => "helper=1\n",
    before  => Service['mn-systemd'],
  }

  file { '/etc/systemd/system/mn-systemd-helper.service':
    ensure  => file,
    content => @(UNIT),
      [Unit]
      Description=fsmove fixture mn_systemd_service, a part of mn-systemd
      PartOf=mn-systemd.service

      [Service]
      ExecStartPre=/bin/cat /etc/mn_systemd_helper.conf
      ExecStart=/bin/sh -c 'cat /etc/mn_systemd_helper.conf >/dev/null; exec sleep infinity'
      | UNIT
    notify  => Service['mn-systemd'],
  }

  service { 'mn-systemd':
    ensure => running,
  }

  file { '/etc/mn_alias.conf':
    ensure  => file,
    content => "alias=1\n",
    before  => Service['mn-alias'],
  }

  file { '/etc/systemd/system/mn-systemd-real.service':
    ensure  => file,
    content => @(UNIT),
      [Unit]
      Description=fsmove fixture mn_systemd_service, started by an alias

      [Service]
      ExecStartPre=/bin/cat /etc/mn_alias.conf
      ExecStart=/bin/sh -c 'cat /etc/mn_alias.conf >/dev/null; exec sleep infinity'
      | UNIT
    notify  => Service['mn-alias'],
  }

  file { '/etc/systemd/system/mn-alias.service':
    ensure => link,
    target => '/etc/systemd/system/mn-systemd-real.service',
    notify => Service['mn-alias'],
  }

  service { 'mn-alias':
    ensure => running,
  }

  file { '/etc/mn_sandboxed.conf':
    ensure  => file,
    content => "sandboxed=1\n",
    before  => Service['mn-sandboxed'],
  }

  file { '/etc/mn_sandboxed.extra':
    ensure  => file,
    content => "extra=1\n",
    notify  => Service['mn-sandboxed'],
  }

  file { '/etc/systemd/system/mn-sandboxed.service':
    ensure  => file,
    content => @(UNIT),
      [Unit]
      Description=fsmove fixture mn_systemd_service, a sandboxed unit

      [Service]
      ProtectSystem=full
      PrivateTmp=yes
      PrivateUsers=yes
      ExecStartPre=/bin/cat /etc/mn_sandboxed.conf /etc/mn_sandboxed.extra
      ExecStart=/bin/sh -c 'cat /etc/mn_sandboxed.conf >/dev/null; exec sleep infinity'
      | UNIT
    notify  => Service['mn-sandboxed'],
  }

  service { 'mn-sandboxed':
    ensure => running,
  }
}
