#!/bin/bash
# Look for a container engine's socket (Docker's, containerd's, the socket
# fsmove's reaper holds) anywhere in the container: with one, a module would
# command the engine, and so the host.
found=$(find / -xdev -type s \( -name '*docker*' -o -name '*containerd*' -o -name '*engine*' -o -name '*podman*' \) 2>/dev/null)
for s in /var/run/docker.sock /run/docker.sock /run/fsmove-engine.sock /run/containerd/containerd.sock; do
	[ -S "$s" ] && found="$found $s"
done
if [ -n "$found" ]; then
	echo "RESULT engine: FOUND$(printf ' %s' $found)"
else
	echo "RESULT engine: no engine socket"
fi
exit 0
