# A directory fd from open_tree(2), which no tracer models as an open, and a
# file created through it (/proc/self/fd/N/made: Ruby has no openat).
# open_tree is allowed only where systemd needs it (--init systemd); denied,
# the file is made plainly, so that the apply goes on the same.
Dir.mkdir('/tmp/hostile-ot') rescue nil
begin
  fd = syscall(428, -100, '/tmp/hostile-ot', 0) # open_tree(AT_FDCWD, path, 0)
  File.write("/proc/self/fd/#{fd}/made", "x\n")
  puts "RESULT open-tree: wrote /tmp/hostile-ot/made through fd #{fd}"
rescue Errno::EPERM, Errno::ENOSYS => e
  File.write('/tmp/hostile-ot/made', "x\n")
  puts "RESULT open-tree: denied (#{e.class}), made it plainly"
end
