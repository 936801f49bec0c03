# Fixture: missing ordering relationship with a resource generated at apply
# time.
#
# File['/opt/mor_generated_resource'] copies a tree recursively
# (recurse => true, source => puppet:///modules/mor_generated_resource/tree).
# The catalog holds only this File; when Puppet evaluates it, it generates
# one File per entry of the tree (File['/opt/mor_generated_resource/
# setup.sh'], File['/opt/mor_generated_resource/etc'], ...), which are in no
# catalog. Exec['run-setup'] runs the generated setup.sh and nothing orders
# it after the recursive File. Manifest order makes this run work; in another
# order sh fails to open the missing script. The generated File is no
# resource of the catalog: the finding names its generator.
#
# Expected finding: MOR File['/opt/mor_generated_resource'] ->
# Exec['run-setup'].
#
# Near miss: Exec['check-version'] reads another generated file,
# etc/version.conf, and requires the recursive File (which orders every
# File it generates before the Exec), so it is not reported.
class mor_generated_resource {
  file { '/opt/mor_generated_resource':
    ensure  => directory,
    recurse => true,
    source  => 'puppet:///modules/mor_generated_resource/tree',
    mode    => '0755',
  }

  exec { 'run-setup':
    command   => '/bin/sh /opt/mor_generated_resource/setup.sh',
    logoutput => true,
  }

  exec { 'check-version':
    command   => '/bin/grep -q ^version= /opt/mor_generated_resource/etc/version.conf',
    logoutput => true,
    require   => File['/opt/mor_generated_resource'],
  }
}
