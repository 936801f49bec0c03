# Fixture: missing ordering relationship that fails in this very run.
#
# Exec['read-conf'] reads /etc/mor_observed_failure.conf, which
# File['/etc/mor_observed_failure.conf'] writes, and nothing orders them.
# The Exec comes first in the manifest, so with Puppet's default
# ordering=manifest it runs first: cat fails with "No such file or
# directory", Puppet reports the Exec as failed, and then the File creates
# the file. A second run would succeed, which is how such faults go unseen.
#
# Expected finding: MOR File['/etc/mor_observed_failure.conf'] ->
# Exec['read-conf'], marked observed (the consumer failed in this run for
# want of the producer's file).
#
# Near miss: Exec['always-fails'] (/bin/false) fails too, for a reason that
# has nothing to do with any other resource: it is not reported.
#
# Puppet exits with 6 (--detailed-exitcodes: changes and failures).
class mor_observed_failure {
  exec { 'read-conf':
    command => '/bin/cat /etc/mor_observed_failure.conf',
  }

  exec { 'always-fails':
    command => '/bin/false',
  }

  file { '/etc/mor_observed_failure.conf':
    ensure  => file,
    content => "greeting=hello\n",
  }
}
