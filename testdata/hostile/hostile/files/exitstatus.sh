#!/bin/sh
# Leaves behind a process that writes "0" to fsmove's puppet.exit every
# 10 ms until the container goes, so that whatever Puppet's status (this
# module makes it fail: Exec[exitstatus-fails]), fsmove would read back a
# clean one. fsmove must keep the status the trace has and call the run
# tampered.
setsid sh -c 'while :; do echo 0 >/fsmove/puppet.exit 2>/dev/null; sleep 0.01; done' </dev/null >/dev/null 2>&1 &
echo "RESULT exit-forge: writer left behind" >&2
