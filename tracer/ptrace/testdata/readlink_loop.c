// readlink_loop.c: N failing readlink calls, for the cost of a stop.
// Usage: readlink_loop N
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
	char buf[64];
	int n = argc > 1 ? atoi(argv[1]) : 0;
	for (int i = 0; i < n; i++)
		readlink("/nonexistent/x", buf, sizeof buf);
	return 0;
}
