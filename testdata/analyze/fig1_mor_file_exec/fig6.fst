# The paper's Fig. 6 (ICSE 2020), written by hand: the FStrace program of the
# run in trace.log, reduced to what matters. Puppet (pid 4242) evaluates
# File[/etc/app.conf], which writes a temporary and renames it onto the
# target, then Exec[use-conf], whose child (pid 501) reads the file. Nothing
# orders the two resources: a missing ordering relationship.

# Start-up, outside any block: it belongs to no resource.
4242 setcwd AT_FDCWD "/root" @7 getcwd
4242 hpath AT_FDCWD "/etc/puppet/puppet.conf" consumed @8 openat

begin "File[/etc/app.conf]" pid 4242 @22 writev
  4242 hpathsym AT_FDCWD "/etc/app.conf" consumed @23 newfstatat
  4242 hpath AT_FDCWD "/etc/app.conf20261122-4242-1k2j3h" produced @25 openat
  4242 newfd 7 = AT_FDCWD "/etc/app.conf20261122-4242-1k2j3h" cloexec @25 openat
  4242 delfd 7 @27 close
  4242 rename AT_FDCWD "/etc/app.conf20261122-4242-1k2j3h" AT_FDCWD "/etc/app.conf" @29 rename
end "File[/etc/app.conf]" pid 4242 @30 writev

begin "Exec[use-conf]" pid 4242 @31 writev
  4242 newproc 501 @34 vfork
  501 hpath AT_FDCWD "/bin/cat" consumed @36 execve
  501 exec @36 execve
  501 hpath AT_FDCWD "/etc/app.conf" consumed @39 openat
  501 newfd 3 = AT_FDCWD "/etc/app.conf" @39 openat
  501 delfd 3 @42 close
  501 exit @44
end "Exec[use-conf]" pid 4242 @47 writev
