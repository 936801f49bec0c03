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
}
