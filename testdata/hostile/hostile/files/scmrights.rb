# A directory fd passed over SCM_RIGHTS to a child, which creates a file
# through it (/proc/self/fd/N/made: Ruby has no openat).
require 'socket'
Dir.mkdir('/tmp/hostile-scm') rescue nil
a, b = UNIXSocket.pair
pid = fork do
  a.close
  io = b.recv_io
  File.write("/proc/self/fd/#{io.fileno}/made", "x\n")
  exit!(0)
end
b.close
d = File.open('/tmp/hostile-scm')
a.send_io(d)
Process.wait(pid)
puts "RESULT scm-rights: wrote /tmp/hostile-scm/made"
