# A hostile module, for fsmove's tests (cmd/fsmove/hostile_e2e_test.go):
# each class tries one way out of fsmove's container and prints what came
# of it as "RESULT <attack>: <outcome>" lines, which the test reads in
# puppet.log. Nothing here harms a host that contains it: the test makes the
# canary it goes for, and everything else is only tried.
#
# canary:   a directory of the host holding a file "secret" (mode 600)
# token:    a word that names what the attacks make, so the test finds it
# port:     a TCP port the test listens on, on every address of the host
# host_ips: the host's addresses, separated by spaces
class hostile (
  String $canary,
  String $token,
  Integer $port,
  String $host_ips,
) {
  file { '/usr/local/lib/hostile':
    ensure  => directory,
    recurse => true,
    source  => 'puppet:///modules/hostile',
    mode    => '0755',
  }
  include hostile::handle
  include hostile::cgroup
  include hostile::nice
  include hostile::limits
  include hostile::network
  include hostile::engine
  include hostile::escapes
  include hostile::copyout
  include hostile::forge
  include hostile::unplaced
  include hostile::exitstatus
  include hostile::varrun
  include hostile::catalog
  include hostile::scmrights
  include hostile::opentree
  include hostile::pathrace
  include hostile::inplace
}
