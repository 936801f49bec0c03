#!/bin/bash
# Connect to the test's port at each address of the host and at the
# container's default gateway (which is the host too).
port=$1
shift
gw=
while read -r iface dest hex rest; do
	if [ "$dest" = 00000000 ]; then
		gw=$((16#${hex:6:2})).$((16#${hex:4:2})).$((16#${hex:2:2})).$((16#${hex:0:2}))
		break
	fi
done </proc/net/route
for ip in "$@" $gw; do
	if timeout 1 bash -c "echo hostile >/dev/tcp/$ip/$port" 2>/dev/null; then
		echo "RESULT network: REACHED $ip:$port"
	else
		echo "RESULT network: blocked $ip:$port"
	fi
done
exit 0
