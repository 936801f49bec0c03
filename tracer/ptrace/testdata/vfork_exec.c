// vfork_exec.c: runs a program the way Ruby's spawn does, from a vfork
// child that shares the parent's memory and stack until it executes.
// Usage: vfork_exec PROGRAM [ARG...]; exits with the program's status.
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
	int status;
	if (argc < 2)
		return 2;
	pid_t pid = vfork();
	if (pid == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 126;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
}
