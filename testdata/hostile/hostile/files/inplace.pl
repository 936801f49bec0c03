#!/usr/bin/perl
# A file changed in place through a shared mapping, with no write call on
# it: /tmp/hostile-inplace is opened for reading and writing (no O_CREAT,
# no O_TRUNC), mapped MAP_SHARED, and read(2) from a pipe fills the mapped
# page, so the kernel writes the file's page itself. The file is read by an
# Exec with no ordering to this one: a real missing ordering, which must be
# found.
use strict;
use warnings;

my $path = "/tmp/hostile-inplace";
open(my $f, "+<", $path) or die "open: $!";
my $page = syscall(9, 0, 4096, 3, 1, fileno($f), 0); # mmap(PROT_READ|PROT_WRITE, MAP_SHARED)
die "mmap: $!" if $page == -1;
pipe(my $r, my $w) or die "pipe: $!";
syswrite($w, "evil");
close $w;
syscall(0, fileno($r), $page, 4) == 4 or die "read: $!";
syscall(11, $page, 4096); # munmap: the page goes to the file
close $f;
open(my $check, "<", $path) or die "open: $!";
my $now = <$check>;
print STDERR "RESULT inplace: " . ($now =~ /^evil/ ? "wrote $path through a shared mapping" : "failed: $now") . "\n";
