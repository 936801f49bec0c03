// threadexec.c: a thread other than the leader calls execve, so the
// process continues under the leader's pid (strace: "superseded by
// execve"). Usage: threadexec FILE — the new program (cat) reads FILE.
#include <pthread.h>
#include <unistd.h>

static char *file;

static void *thread_main(void *arg) {
	execl("/bin/cat", "cat", file, (char *)NULL);
	return arg;
}

int main(int argc, char **argv) {
	if (argc < 2)
		return 2;
	file = argv[1];
	pthread_t t;
	pthread_create(&t, NULL, thread_main, NULL);
	pthread_join(t, NULL); // never returns: the exec ends this thread
	return 3;
}
