# Fixture: missing ordering relationship (generate-use).
#
# Exec['generate-script'] creates /usr/local/bin/mor-generate-use and
# Exec['run-script'] runs it, with no ordering between them. Manifest order
# makes this run work. Expected finding: one MOR between the two Execs.
class mor_generate_use {
  exec { 'generate-script':
    command => "/bin/sh -c 'printf \"#!/bin/sh\\necho generated\\n\" > /usr/local/bin/mor-generate-use && chmod 755 /usr/local/bin/mor-generate-use'",
    creates => '/usr/local/bin/mor-generate-use',
  }

  exec { 'run-script':
    command   => '/usr/local/bin/mor-generate-use',
    logoutput => true,
  }
}
