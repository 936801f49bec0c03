# Near miss: two unordered resources on one file, in either order the same
# end state.
#
# File['/srv/near_commutative.conf'] makes the file and sets its mode;
# Exec['enable-line'] appends a line unless it is there. File first: an
# empty file, mode 0600, then the line. Exec first: the shell makes the file
# (mode 0644) with the line, then File sets the mode 0600. Both orders end
# with the same content, mode and owner, so re-applying in the other order
# (fsmove run --confirm) refutes the pair. Whether the detector reports it
# or holds it back as commuting, it is not a fault.
class near_commutative {
  file { '/srv/near_commutative.conf':
    ensure => file,
    mode   => '0600',
  }

  exec { 'enable-line':
    command => "/bin/sh -c 'echo enabled=1 >> /srv/near_commutative.conf'",
    unless  => '/bin/grep -q enabled=1 /srv/near_commutative.conf',
  }
}
