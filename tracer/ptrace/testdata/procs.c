// procs.c exercises what the tracer must follow: fork, vfork+exec, a
// thread (glibc creates it with clone3), dup2, O_CLOEXEC, pipe2, rename,
// mkdir, unlink, symlink, getcwd. Usage: procs DIR (run from anywhere).
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void *thread_main(void *arg) {
	int fd = open("thread-made", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		write(fd, "t", 1);
		close(fd);
	}
	return arg;
}

int main(int argc, char **argv) {
	if (argc < 2)
		return 2;
	if (argc > 2) { // the exec'd copy: read a file and leave
		int fd = open("exec-read", O_RDONLY);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (chdir(argv[1]) != 0)
		return 3;
	int in = creat("input", 0644);
	close(in);
	in = open("input", O_RDONLY);
	dup2(in, 7);
	int ce = open("cloexec", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	(void)ce;
	int fd = open("exec-read", O_WRONLY | O_CREAT, 0644);
	close(fd);

	pid_t c = fork();
	if (c == 0) {
		int f = open("forked", O_WRONLY | O_CREAT, 0644);
		close(f);
		_exit(0);
	}
	waitpid(c, NULL, 0);

	c = vfork();
	if (c == 0) {
		execl(argv[0], argv[0], argv[1], "exec", (char *)NULL);
		_exit(1);
	}
	waitpid(c, NULL, 0);

	pthread_t t;
	pthread_create(&t, NULL, thread_main, NULL);
	pthread_join(t, NULL);

	mkdir("dir", 0755);
	rename("forked", "dir/moved");
	unlink("input");
	symlink("dir", "link");
	int p[2];
	pipe2(p, O_CLOEXEC);
	char cwd[4096];
	if (getcwd(cwd, sizeof cwd) == NULL)
		return 4;
	fd = openat(AT_FDCWD, "link/via-link", O_RDWR | O_CREAT | O_TRUNC, 0600);
	close(fd);
	printf("done in %s\n", cwd);
	return 0;
}
