# The service of fix_chain (see init.pp).
class fix_chain::service {
  service { 'fix-chain':
    ensure => running,
  }
}
