#!/bin/sh
# apply.sh — fsmove's traced "puppet apply", run inside the container.
#
# Usage: apply.sh STRACE-OPTIONS... -- PUPPET-APPLY-ARGUMENTS...
#
# strace -f follows every descendant of Puppet, daemons included: a service
# that Puppet starts (cron, say) would keep strace, and so the run, alive
# forever. strace 6.1 has no option to stop when its first tracee exits, so
# this script watches Puppet's pid itself and ends strace (SIGTERM makes
# strace detach from the remaining tracees and exit) as soon as Puppet is
# gone. The daemons are left running; the container's removal ends them.
# strace blocks fatal signals for its whole life when it writes to a file
# (-o FILE) and starts the program itself (its -I3 default), so -I2 is given:
# SIGTERM is then only held back while a system call is being decoded.
#
# Files, all in the work directory ($FSMOVE_WORKDIR, default this script's
# own directory; the strace -o option must name $FSMOVE_WORKDIR/trace.log):
#   trace.log    strace's output
#   puppet.log   Puppet's stdout and stderr
#   puppet.pid   Puppet's pid (written by the traced process before it execs Puppet)
#   puppet.exit  Puppet's exit status as strace saw it, or "unknown"
# The script's own exit status is 0 when it ran Puppet to its end, whatever
# Puppet's status; 125 when strace could not start Puppet.
set -u
workdir=${FSMOVE_WORKDIR:-${0%/*}}
cd "$workdir" || exit 125

strace_opts=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	strace_opts="$strace_opts $1"
	shift
done
[ $# -gt 0 ] && shift # the "--"

rm -f puppet.pid puppet.exit

# strace and Puppet run on one CPU, the one this script is on: every stop
# hands the CPU from Puppet to strace and back, a context switch on one CPU
# but the wake-up of an idle CPU across two, which in a virtual machine
# costs a halt and its exit each time (the bench fixture's apply: 74 s
# unpinned, 12 s pinned, 3 s untraced). Puppet's children inherit the mask;
# the processes strace attaches to (PID 1) keep theirs. Without taskset,
# nothing is pinned.
pin=""
cpu=$(sed -n 's/^.*) //p' /proc/self/stat | cut -d' ' -f37)
if command -v taskset >/dev/null 2>&1 && [ -n "$cpu" ]; then
	pin="taskset -c $cpu"
fi

# The traced process writes its pid and then execs Puppet, so Puppet keeps
# that pid and is the first process of the trace.
# shellcheck disable=SC2086 # strace_opts and pin are word lists on purpose
$pin strace -I2 $strace_opts -- /bin/sh -c 'echo $$ > puppet.pid && exec puppet apply "$@"' puppet-apply "$@" \
	>puppet.log 2>&1 </dev/null &
strace_pid=$!

# Wait for the pid file (or for strace to die before it got there).
while [ ! -s puppet.pid ]; do
	if ! kill -0 "$strace_pid" 2>/dev/null; then
		wait "$strace_pid"
		echo "fsmove apply.sh: strace exited with status $? before Puppet started" >&2
		echo unknown >puppet.exit
		exit 125
	fi
	sleep 0.05
done
puppet_pid=$(cat puppet.pid)

# strace is Puppet's parent and reaps it at once, so kill -0 fails as soon
# as Puppet has exited. One tail process waits for that, started now: the
# module's code shares the container's task limit with this script, and a
# module that forks up to it (the hostile fixture's pids attack) would make
# a sleep forked every 0.1 s fail, and the shell exit on "Cannot fork"
# (measured under a CPU hog on every core, where the limit stays reached
# for seconds). Without GNU tail's --pid, the loop.
if ! tail --pid="$puppet_pid" -s 0.1 -f /dev/null 2>/dev/null; then
	while kill -0 "$puppet_pid" 2>/dev/null; do
		sleep 0.1
	done
fi

# strace reaps Puppet first and writes its "+++ exited" line after: a
# SIGTERM in between ends strace before it writes the line, and Puppet's
# status is lost ("unknown"). Wait for the line (near the end of the trace;
# at most 10 s, then the whole trace is searched below all the same).
i=0
while [ "$i" -lt 200 ] && ! tail -c 1048576 trace.log | grep -q -E "^$puppet_pid +[+]{3} (exited|killed)"; do
	sleep 0.05
	i=$((i + 1))
done

# Puppet is gone: stop tracing whatever it left behind.
kill -TERM "$strace_pid" 2>/dev/null
# strace re-raises SIGTERM after detaching; keep the shell's "Terminated"
# notice out of the output.
wait "$strace_pid" 2>/dev/null

# strace wrote "PID +++ exited with N +++" (or "+++ killed by SIG… +++")
# when it reaped Puppet.
status=$(sed -n "s/^$puppet_pid  *+++ exited with \([0-9]*\) +++\$/\1/p" trace.log | tail -n 1)
if [ -z "$status" ]; then
	if grep -q "^$puppet_pid  *+++ killed by" trace.log; then
		status=killed
	else
		status=unknown
	fi
fi
echo "$status" >puppet.exit
exit 0
