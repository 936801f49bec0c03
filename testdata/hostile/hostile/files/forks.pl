# Fork up to N sleeping children; report how many it got before a fork
# failed, then end them all.
use strict;
use warnings;
my $want = shift || 600;
my @kids;
my $got = 0;
for (1 .. $want) {
    my $pid = fork;
    last unless defined $pid;
    if ($pid == 0) {
        close STDOUT;
        close STDERR;
        sleep 60;
        exit 0;
    }
    push @kids, $pid;
    $got++;
}
if ($got < $want) { print "RESULT pids: stopped after $got of $want forks\n" }
else              { print "RESULT pids: FORKED all $want\n" }
kill 'KILL', @kids;
waitpid($_, 0) for @kids;
