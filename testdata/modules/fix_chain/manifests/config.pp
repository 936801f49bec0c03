# The configuration of fix-chain.service (see init.pp).
class fix_chain::config {
  file { '/etc/fix_chain.conf':
    ensure  => file,
    content => "chain=1\n",
  }

  # The unit reads its configuration in ExecStartPre, which systemd runs
  # to its end before "systemctl start" returns (see mn_systemd_service).
  file { '/etc/systemd/system/fix-chain.service':
    ensure  => file,
    content => @(UNIT),
      [Unit]
      Description=fsmove fixture fix_chain

      [Service]
      ExecStartPre=/bin/cat /etc/fix_chain.conf
      ExecStart=/bin/sh -c 'exec sleep infinity'
      | UNIT
  }
}
