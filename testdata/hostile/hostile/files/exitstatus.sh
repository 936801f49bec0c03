#!/bin/sh
# Leaves behind a process that writes "0" to fsmove's puppet.exit every
# 10 ms until the container goes, so that whatever Puppet's status (this
# module makes it fail: Exec[exitstatus-fails]), fsmove would read back a
# clean one. fsmove must keep the status the trace has and call the run
# tampered. The same process rewrites Puppet's report once Puppet has
# written it, so that the failed Exec reads as applied: fsmove must keep
# the failure the trace has.
report=/var/cache/puppet/state/last_run_report.yaml
setsid sh -c '
report=$1
while :; do
	echo 0 >/fsmove/apply/puppet.exit 2>/dev/null
	if grep -q "^  Exec\[exitstatus-fails\]:" "$report" 2>/dev/null && grep -q "^    failed: true" "$report"; then
		sed -i "s/^    failed: true/    failed: false/; s/^status: failed/status: changed/" "$report"
	fi
	sleep 0.01
done' fsmove-forge "$report" </dev/null >/dev/null 2>&1 &
echo "RESULT exit-forge: writer left behind" >&2
