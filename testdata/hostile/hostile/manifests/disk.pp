# Fills the container's disk (not included by class hostile, whose run must
# go to its end: cmd/fsmove's TestE2EDiskBudget applies this class alone,
# with a small --max-disk). The file's blocks are allocated, not written,
# so that the test is quick; the host's disk holds them all the same.
class hostile::disk {
  exec { 'hostile-disk':
    command   => '/bin/sh -c "fallocate -l 1536M /root/hostile-disk && echo RESULT disk: allocated 1536M && sleep 60"',
    logoutput => true,
    timeout   => 120,
  }
}
