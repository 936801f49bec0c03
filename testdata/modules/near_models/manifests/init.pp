# Fixture: a program model (detector/models.go) on a real run, with the
# fault it must not hide.
#
# apt-empty-config: apt reads an empty part of its configuration as no
# file. File['/etc/apt/preferences.d/near_models.pref'] makes an empty
# preferences part (ensure file, no content), and Exec['apt-policy'] runs
# apt-cache policy, unordered with it, which reads it: in the other order
# apt-cache finds no such part and prints the same pins. Held back, naming
# the model; with --no-models it is reported.
#
# Expected findings: File['/etc/apt/apt.conf.d/99near_models'] writes an
# option, which apt-cache and apt-config read, unordered with both: in the
# other order they run without it. MOR
# File['/etc/apt/apt.conf.d/99near_models'] -> Exec['apt-policy'] and ->
# Exec['apt-config'].
class near_models {
  file { '/etc/apt/preferences.d/near_models.pref':
    ensure => file,
  }

  file { '/etc/apt/apt.conf.d/99near_models':
    ensure  => file,
    content => "Acquire::Retries \"3\";\n",
  }

  exec { 'apt-policy':
    command => '/usr/bin/apt-cache policy',
  }

  exec { 'apt-config':
    command => '/usr/bin/apt-config dump',
  }
}
