# Puppet's exit status rewritten after Puppet exits (files/exitstatus.sh):
# Puppet fails here (Exec[exitstatus-fails]), and a process the module
# leaves behind writes "0" where fsmove reads the status back. The trace
# says how Puppet ended: fsmove keeps that and calls the run tampered.
class hostile::exitstatus {
  exec { 'hostile-exitstatus':
    command   => 'sh /usr/local/lib/hostile/exitstatus.sh',
    path      => ['/usr/bin', '/bin'],
    logoutput => true,
    require   => File['/usr/local/lib/hostile'],
  }
  exec { 'exitstatus-fails':
    command => '/bin/false',
  }
}
