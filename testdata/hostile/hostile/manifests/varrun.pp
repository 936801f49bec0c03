# A write through the image's own link /var/run → /run, and a read of the
# path it names, with no ordering between them (plain Execs, as in
# hostile::forge, so that the writer comes first). One file: the missing
# ordering must be found.
class hostile::varrun {
  exec { 'hostile-varrun':
    command => '/bin/sh -c "echo through-the-link > /var/run/hostile-varrun"',
  }
  exec { 'varrun-other':
    command => '/bin/true',
  }
  exec { 'varrun-read':
    command => '/bin/cat /run/hostile-varrun',
    require => Exec['varrun-other'],
  }
}
