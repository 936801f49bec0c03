# Fixture: missing ordering relationship (a File that sets the mode of a
# file another resource makes).
#
# Exec['make-key'] writes /etc/mor_exec_then_mode.key only when it is
# missing (creates), and File['/etc/mor_exec_then_mode.key'] sets only its
# mode, unordered. The run applies the Exec first (manifest order), so the
# File finds the key and makes it 0600. In the other order the File finds
# no file and does nothing (it has no ensure); the Exec then writes the key
# with the default mode 0644: a secret left readable.
# Expected finding: MOR Exec['make-key'] -> File['/etc/mor_exec_then_mode.key']
# (detector rule 18).
#
# Near miss: Exec['rewrite-issue'] rewrites /etc/issue.net, which the image
# has, in place (no creates: it runs every time), and File['/etc/issue.net']
# sets its mode, unordered. The shell's truncating open keeps the inode and
# its mode, so both orders end with the Exec's content and mode 0640. Not
# reported.
class mor_exec_then_mode {
  exec { 'make-key':
    command => "/bin/sh -c 'echo secret > /etc/mor_exec_then_mode.key'",
    creates => '/etc/mor_exec_then_mode.key',
  }

  file { '/etc/mor_exec_then_mode.key':
    mode => '0600',
  }

  exec { 'rewrite-issue':
    command => "/bin/sh -c 'echo fsmove > /etc/issue.net'",
  }

  file { '/etc/issue.net':
    mode => '0640',
  }
}
