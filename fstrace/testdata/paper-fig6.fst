# An FStrace program in the spirit of Fig. 6 of Sotiropoulos, Mitropoulos
# and Spinellis, "Practical Fault Detection in Puppet Programs" (ICSE 2020).
#
# Puppet (pid 100) evaluates two resources that the manifest does not order:
#   File[/etc/app.conf]            writes the file (a temporary, then a rename);
#   Exec[use conf: /etc/app.conf]  runs a shell (pid 101) that reads it.
# The File block produces /etc/app.conf and the Exec block consumes it, so
# File must precede Exec: without a require, a missing ordering relationship.

# Start-up, outside any block: it belongs to no resource.
100 setcwd AT_FDCWD "/root" @3 getcwd
100 hpath AT_FDCWD "/etc/puppet/puppet.conf" consumed @12 newfstatat

begin "File[/etc/app.conf]" pid 100 @40 writev
  100 hpath AT_FDCWD "/etc" consumed @41 newfstatat
  100 hpath AT_FDCWD "/etc/.app.conf20201122-100-1x" produced @42 openat
  100 newfd 7 = AT_FDCWD "/etc/.app.conf20201122-100-1x" cloexec @42 openat
  100 delfd 7 @44 close
  100 rename AT_FDCWD "/etc/.app.conf20201122-100-1x" AT_FDCWD "/etc/app.conf" @45 rename
end "File[/etc/app.conf]" pid 100 @46 writev

begin "Exec[use conf: /etc/app.conf]" pid 100 @47 writev
  100 newproc 101 @48 vfork
  101 hpath AT_FDCWD "/bin/sh" consumed @49 execve
  101 exec @49 execve
  101 hpath AT_FDCWD "/etc/app.conf" consumed @50 openat   # the read that needs File first
  101 newfd 3 = AT_FDCWD "/etc/app.conf" cloexec @50 openat
  101 delfd 3 @51 close
  101 exit @52
# "end" alone closes the innermost open block.
end pid 100 @53 writev
