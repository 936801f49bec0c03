#!/bin/sh
# Fill the host's disk through what fsmove copies out (Puppet's graphs: a
# sparse 2 GiB resources.dot; its inodes: relationships.dot made a directory
# of 20000 empty files), and make another artifact a link to a secret of the
# container.
g=/fsmove/apply/graphs
truncate -s 2G $g/resources.dot && echo "RESULT copyout-huge: made $g/resources.dot"
rm -f $g/relationships.dot && mkdir $g/relationships.dot && (cd $g/relationships.dot && seq 1 20000 | xargs touch) &&
	echo "RESULT copyout-dir: made $g/relationships.dot a directory of 20000 files"
ln -sf /etc/shadow $g/expanded_relationships.dot && echo "RESULT copyout-link: made $g/expanded_relationships.dot -> /etc/shadow"
exit 0
