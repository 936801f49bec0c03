// writes.c makes the writes the tracer decides on: short ones (at most 32
// bytes, decoded with their data on any fd) and longer ones (on fds other
// than 1 and 2: not traced). Usage: writes DIR.
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc < 2 || chdir(argv[1]) != 0)
		return 2;
	// An fd 3 inherited from the caller (flock's lock file, when the tests
	// run under flock) would push the file to 4.
	close(3);
	int fd = open("cgroup.procs", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd != 3)
		return 3;
	char big[100];
	memset(big, 'x', sizeof big);
	write(fd, "57\n", 3);
	struct iovec two[2] = {{"58", 2}, {"\n", 1}};
	writev(fd, two, 2);
	pwrite(fd, "59\n", 3, 100);
	write(fd, big, 32); // the limit: decoded
	write(fd, big, 33); // longer: not stopped
	struct iovec forty[2] = {{big, 20}, {big, 20}};
	writev(fd, forty, 2); // 40 bytes in few iovecs: stopped, not decoded
	struct iovec many[40];
	for (int i = 0; i < 40; i++)
		many[i] = (struct iovec){big, 1};
	writev(fd, many, 40); // 40 iovecs: not stopped
	write(99, "x", 1);    // EBADF
	close(fd);
	write(1, "a block marker longer than thirty-two bytes\n", 44);
	return 0;
}
