#!/usr/bin/perl
# Writes the model could not place before: a file made through
# /proc/self/fd/N/name (a directory open on fd N), and one made by a
# relative open after a chroot (the model resolved it from its old root).
# Each is read by an Exec with no ordering to this one: a real missing
# ordering, which must be found or make the analysis incomplete.
use strict;
use warnings;

mkdir "/tmp/hostile-fd";
opendir(my $dir, "/tmp/hostile-fd") or die "opendir: $!";
my $n = fileno($dir);
if (open(my $f, ">", "/proc/self/fd/$n/made")) {
	print $f "x\n";
	close $f;
	print STDERR "RESULT unplaced-procfd: wrote /tmp/hostile-fd/made\n";
} else {
	print STDERR "RESULT unplaced-procfd: failed $!\n";
}

mkdir "/tmp/hostile-jail";
if (chroot("/tmp/hostile-jail") && chdir("/") && open(my $f, ">", "jailed")) {
	print $f "x\n";
	close $f;
	print STDERR "RESULT unplaced-chroot: wrote /tmp/hostile-jail/jailed\n";
} else {
	print STDERR "RESULT unplaced-chroot: failed $!\n";
}
