# Fill the host's disk through what fsmove copies out (a sparse 2 GiB graph),
# and make an artifact a link.
class hostile::copyout {
  hostile::attack { 'copyout':
    command => 'sh /usr/local/lib/hostile/copyout.sh',
  }
}
