// readlinks.c: readlink calls the tracer predicts to fail, and some it must
// not predict. Usage: readlinks LINK (LINK is a symlink).
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv) {
	char buf[256];
	if (argc < 2)
		return 2;
	for (int i = 0; i < 100; i++)
		readlink("/nonexistent/x", buf, sizeof buf); // ENOENT: predicted
	readlink("/etc/hostname", buf, sizeof buf);      // EINVAL: predicted
	readlink(argv[1], buf, sizeof buf);              // a link: succeeds
	readlink("/proc/self/exe", buf, sizeof buf);     // the tracee's own
	dup2(open("/etc/hostname", O_RDONLY), 50);
	readlink("/proc/self/fd/50", buf, sizeof buf); // an fd the tracer lacks
	return 0;
}
