# Fixture: missing ordering relationship (read-modify-write edit).
#
# File['/etc/mor_read_modify_write.conf'] writes a whole configuration file
# and Exec['enable-feature'] edits it in place with `sed -i`: sed reads the
# file, writes the edited copy to a temporary file in /etc and renames it
# over the original. Nothing orders the two. Manifest order makes this run
# end with the edit applied. In the other order sed fails on a missing file
# (first run), or edits the old file and the File then replaces it, so the
# edit is lost and every later run flips the file back and forth.
#
# Expected finding: MOR File['/etc/mor_read_modify_write.conf'] ->
# Exec['enable-feature'].
#
# Near miss: Exec['enable-other'] makes the same kind of edit to
# /etc/mor_read_modify_write-other.conf and requires its File, so it is not
# reported.
#
# Rule 22 (detector/doc.go): a File that finds its path as it manages it
# changes nothing in this run. Exec['seed'] writes two files before their
# Files, which find them right (same content). Exec['read-kept'] only reads
# /etc/mor_read_modify_write-kept.conf, unordered with its File: in the other
# order it reads the same bytes, so the pair is held back. Expected finding:
# Exec['enable-kept'] edits that file in place, unordered with the File,
# which manages its content: in the other order the File replaces the edit
# (MOR File['/etc/mor_read_modify_write-kept.conf'] -> Exec['enable-kept']).
# Held back too: Exec['enable-default'] edits
# /etc/mor_read_modify_write-default.conf, whose File has replace => false
# and so leaves a file that is there as it is, in either order.
class mor_read_modify_write {
  file { '/etc/mor_read_modify_write.conf':
    ensure  => file,
    content => "# written by the fsmove fixture mor_read_modify_write\nfeature=off\n",
  }

  exec { 'enable-feature':
    command => "/bin/sed -i 's/^feature=off$/feature=on/' /etc/mor_read_modify_write.conf",
  }

  file { '/etc/mor_read_modify_write-other.conf':
    ensure  => file,
    content => "# written by the fsmove fixture mor_read_modify_write\nother=off\n",
  }

  exec { 'enable-other':
    command => "/bin/sed -i 's/^other=off$/other=on/' /etc/mor_read_modify_write-other.conf",
    require => File['/etc/mor_read_modify_write-other.conf'],
  }

  exec { 'seed':
    command => "/bin/sh -c 'printf \"feature=off\\n\" >/etc/mor_read_modify_write-kept.conf && printf \"feature=off\\n\" >/etc/mor_read_modify_write-default.conf'",
    creates => '/etc/mor_read_modify_write-kept.conf',
  }

  file { '/etc/mor_read_modify_write-kept.conf':
    ensure  => file,
    content => "feature=off\n",
    require => Exec['seed'],
  }

  exec { 'read-kept':
    command => '/bin/cat /etc/mor_read_modify_write-kept.conf',
    require => Exec['seed'],
  }

  exec { 'enable-kept':
    command => "/bin/sed -i 's/^feature=off$/feature=on/' /etc/mor_read_modify_write-kept.conf",
    require => Exec['seed'],
  }

  file { '/etc/mor_read_modify_write-default.conf':
    ensure  => file,
    content => "feature=default\n",
    replace => false,
    require => Exec['seed'],
  }

  exec { 'enable-default':
    command => "/bin/sed -i 's/^feature=off$/feature=on/' /etc/mor_read_modify_write-default.conf",
    require => Exec['seed'],
  }
}
