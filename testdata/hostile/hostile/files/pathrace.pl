#!/usr/bin/perl
# A write hidden by rewriting its path while the call is held up: a child
# opens /tmp/hostile-race for writing, with the path in memory it shares
# with this process; this process holds a read lease on the file, so the
# open waits, after the kernel has copied the path, until the lease is
# given up. Meanwhile the path is rewritten to /tmp/hostile-safe (the same
# length), which is what a tracer reading it at the call's exit sees. The
# file is read by an Exec with no ordering to this one: a real missing
# ordering, which must be found.
use strict;
use warnings;
use POSIX ();

my ($real, $decoy) = ("/tmp/hostile-race", "/tmp/hostile-safe");
$SIG{IO} = 'IGNORE'; # the lease break's signal

# One page shared with the child (mmap MAP_SHARED|MAP_ANONYMOUS), holding
# the path the child opens; written through a pipe (read(2) into it).
my $page = syscall(9, 0, 4096, 3, 0x21, -1, 0);
die "mmap: $!" if $page == -1;
sub put {
	my ($s) = @_;
	pipe(my $r, my $w) or die "pipe: $!";
	syswrite($w, "$s\0");
	close $w;
	syscall(0, fileno($r), $page, length($s) + 1) == length($s) + 1 or die "read: $!";
	close $r;
}
put($real);

open(my $held, "<", $real) or die "open: $!";
my $leased = fcntl($held, 1024, 0); # F_SETLEASE, F_RDLCK
my $why = $leased ? "" : "lease refused ($!)";

my $pid = fork() // die "fork: $!";
if ($pid == 0) {
	close $held;
	my $fd = syscall(2, $page, 0x201); # open(path, O_WRONLY|O_TRUNC)
	POSIX::_exit(1) if $fd < 0;
	my $data = "raced\n";
	syscall(1, $fd, $data, length $data);
	POSIX::_exit(0);
}
if ($leased) {
	select(undef, undef, undef, 1); # the child is waiting in open
	put($decoy);
	fcntl($held, 1024, 2); # F_UNLCK: the open goes on, with the real path
}
waitpid($pid, 0);
my $done = $? == 0 ? "wrote $real" : "failed";
print STDERR "RESULT path-race: $done" . ($why ? ", $why" : " through a path rewritten while the open waited") . "\n";
