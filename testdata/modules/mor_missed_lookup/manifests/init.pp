# Fixture: missing ordering relationship seen from the other side (a
# resource that looked for a file before another made it, and went on
# without it).
#
# Exec['enable-feature'] runs only if /etc/mor_missed_lookup.enabled exists
# (onlyif), and File['/etc/mor_missed_lookup.enabled'] makes that file,
# unordered. The run applies the Exec first (manifest order): its test looks
# the file up, does not find it, and the Exec is skipped without an error.
# In the other order the test finds the file and the Exec runs.
# Expected finding: MOR File['/etc/mor_missed_lookup.enabled'] ->
# Exec['enable-feature'] (detector rule 19, relation "missed").
#
# Near miss: Exec['init-once'] checks that its own marker is missing
# (unless) and then makes it, and File['/etc/mor_missed_lookup.init']
# replaces the marker later. The Exec's check is of its own work: no
# "missed" relation. The overwrite makes a pair that rule 13 holds back
# (the Exec makes the marker only when it is missing).
class mor_missed_lookup {
  exec { 'enable-feature':
    command => "/bin/sh -c 'echo on > /var/tmp/mor_missed_lookup.feature'",
    onlyif  => '/usr/bin/test -f /etc/mor_missed_lookup.enabled',
  }

  file { '/etc/mor_missed_lookup.enabled':
    ensure  => file,
    content => "yes\n",
  }

  exec { 'init-once':
    command => "/bin/sh -c 'echo init > /etc/mor_missed_lookup.init'",
    unless  => '/usr/bin/test -f /etc/mor_missed_lookup.init',
  }

  file { '/etc/mor_missed_lookup.init':
    ensure  => file,
    content => "initialized by the File\n",
  }
}
