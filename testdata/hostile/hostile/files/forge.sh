#!/bin/sh
# Fake block markers around a write: the end of this Exec's own block and
# the start of another resource's (Exec[forge-other], which Exec[forge-read]
# requires), so that the write would be charged to that other resource and
# the missing ordering between this Exec and the reader would not be found.
# Only Puppet's own process writes markers: the write must stay this Exec's.
src=/Stage[main]/Hostile::Forge/Exec[hostile-forge]
other=/Stage[main]/Hostile::Forge/Exec[forge-other]
printf 'Info: %s: Evaluated in 0.01 seconds\nInfo: %s: Starting to evaluate the resource (1 of 2)\n' "$src" "$other"
echo forged >/tmp/hostile-forged
printf 'Info: %s: Evaluated in 0.01 seconds\nInfo: %s: Starting to evaluate the resource (2 of 2)\n' "$other" "$src"
echo "RESULT forge: wrote /tmp/hostile-forged between fake markers" >&2
