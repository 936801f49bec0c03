#!/bin/sh
# 1.5 GiB in one process.
perl -e '$x = q(x) x (1536 << 20); print qq(RESULT memory: ALLOCATED 1.5 GiB\n)'
st=$?
[ $st = 0 ] || echo "RESULT memory: stopped, status $st"
exit 0
