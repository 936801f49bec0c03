#!/bin/sh
# Try to leave the container's cgroups and to change the host's, then act,
# so that the test sees whether the tracer still saw us. Every write that
# works is reported with its path ("MOVED", "MADE", "WRITTEN"); the test
# checks those against the subtree fsmove gave the container.
token=$1
while IFS=: read -r id ctrls path; do
	case "$ctrls" in
	"") h=/sys/fs/cgroup/unified; [ -d $h ] || h=/sys/fs/cgroup ;;
	name=*) h=/sys/fs/cgroup/${ctrls#name=} ;;
	*) h=/sys/fs/cgroup/$ctrls ;;
	esac
	[ -d "$h" ] || continue
	# Our own cgroup and every one above it, up to the hierarchy's root.
	p=$path
	while :; do
		dir=$h$p
		[ "$p" = / ] && dir=$h
		if [ -e "$dir/cgroup.procs" ]; then
			if echo $$ 2>/dev/null >"$dir/cgroup.procs"; then
				echo "RESULT cgroup-move: MOVED $dir"
			else
				echo "RESULT cgroup-move: denied $dir"
			fi
		fi
		[ "$p" = / ] && break
		p=$(dirname "$p")
	done
	if mkdir "$h/fsmove-evil-$token" 2>/dev/null; then
		# A directory made in a tmpfs of the container's own is no cgroup.
		if [ -e "$h/fsmove-evil-$token/cgroup.procs" ]; then
			echo "RESULT cgroup-mkdir: MADE $h/fsmove-evil-$token"
		else
			echo "RESULT cgroup-mkdir: denied $h (a plain directory of the container's own)"
		fi
		rmdir "$h/fsmove-evil-$token"
	else
		echo "RESULT cgroup-mkdir: denied $h"
	fi
	if [ -e "$h/release_agent" ]; then
		if echo /bin/true 2>/dev/null >"$h/release_agent"; then
			echo "RESULT cgroup-release-agent: WRITTEN $h/release_agent"
		else
			echo "RESULT cgroup-release-agent: denied $h"
		fi
	fi
done </proc/self/cgroup
# In a user and mount namespace of our own (systemd mode lets a module make
# them, as systemd does for its units): remount the read-only cgroup binds
# read-write, or mount a cgroup2 hierarchy afresh, and move there ("0" is
# the writer itself).
for h in /sys/fs/cgroup/unified /sys/fs/cgroup/pids /sys/fs/cgroup; do
	[ -e $h/cgroup.procs ] || continue
	if unshare -U -r -m sh -c "mount -o remount,bind,rw $h && echo 0 >$h/cgroup.procs" 2>/dev/null; then
		echo "RESULT cgroup-userns: WRITTEN $h (remounted read-write)"
	else
		echo "RESULT cgroup-userns: denied $h"
	fi
done
if unshare -U -r -m sh -c "mkdir -p /tmp/cg-$token && mount -t cgroup2 none /tmp/cg-$token && echo 0 >/tmp/cg-$token/cgroup.procs" 2>/dev/null; then
	echo "RESULT cgroup-userns: WRITTEN a cgroup2 hierarchy mounted afresh"
else
	echo "RESULT cgroup-userns: denied mounting cgroup2"
fi
# Another run's subtree: the test makes /fsmove/fsmove-decoy-<token> in
# every hierarchy of the host; the container must not see it.
seen=
for d in /sys/fs/cgroup/*/fsmove /sys/fs/cgroup/fsmove; do
	[ -e "$d/fsmove-decoy-$token" ] && seen="$seen $d"
done
if [ -n "$seen" ]; then
	echo "RESULT cgroup-list: SAW another run's cgroup in$seen"
else
	echo "RESULT cgroup-list: hidden"
fi
# Wherever we are now, act: the trace must show this, or the run must say
# it is incomplete.
touch "/root/hostile-after-cgroup-$token"
echo "RESULT cgroup-marker: made /root/hostile-after-cgroup-$token"
# A pid namespace (and user namespace) of our own, nested in the container's.
if unshare -U -r -p -f sh -c "touch /root/hostile-pidns-$token" 2>/dev/null; then
	echo "RESULT pidns-marker: made /root/hostile-pidns-$token"
else
	echo "RESULT pidns-marker: unshare failed"
fi
