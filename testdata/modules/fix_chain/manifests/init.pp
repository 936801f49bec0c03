# Fixture: what "fsmove fix" edits besides one resource's attributes.
#
# The module chains its classes as many Forge modules do: config, then
# service (contain and ->). The daemon of fix-chain.service reads
# /etc/fix_chain.conf, which the config class writes: an expected MN,
# File['/etc/fix_chain.conf'] to Service['fix-chain']; systemd reads the
# unit file, which the config class writes too: a second expected MN. The
# fix of both is the chain itself, -> becoming ~>.
#
# The defined type fix_chain::site declares a file and an Exec that reads
# it, unordered: an expected MOR, File['/etc/fix_chain-web.conf'] to
# Exec['read-web'], whose fix goes in the defined type with references
# that hold for every instance (require => File["/etc/fix_chain-${title}.conf"]).
#
# Near miss: Exec['read-once'] reads /etc/fix_chain.once, which it requires.
class fix_chain {
  contain fix_chain::config
  contain fix_chain::service
  Class['fix_chain::config'] -> Class['fix_chain::service']

  fix_chain::site { 'web': }

  file { '/etc/fix_chain.once':
    ensure  => file,
    content => "once\n",
  }

  exec { 'read-once':
    command   => '/bin/cat /etc/fix_chain.once',
    logoutput => true,
    require   => File['/etc/fix_chain.once'],
  }
}
