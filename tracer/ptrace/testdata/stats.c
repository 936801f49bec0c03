// stats.c: stat calls whose outcome the tracer predicts, open calls whose
// failed lookup it predicts, and some it must not. Usage: stats DIR, where
// DIR holds a file f and a directory private (mode 0700) holding a file g;
// run as root.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
	struct stat st;
	if (argc < 2 || chdir(argv[1]) != 0)
		return 2;
	stat("f", &st);                  // relative to the cwd: success
	stat("nope", &st);               // ENOENT
	stat("f/x", &st);                // ENOTDIR
	int d = open(".", O_RDONLY | O_DIRECTORY);
	fstatat(d, "f", &st, 0);         // relative to a directory fd
	fstatat(d, "nope", &st, 0);      // ENOENT there
	fstat(d, &st);                   // newfstatat(d, "", AT_EMPTY_PATH)
	fstatat(99, "f", &st, 0);        // EBADF, not ENOENT
	stat("/proc/self/fd/99", &st);   // the caller's own: ENOENT
	open("nope", O_RDONLY);          // ENOENT
	open("f/x", O_RDONLY);           // ENOTDIR
	open("f", O_RDONLY | O_DIRECTORY); // ENOTDIR, though f is there
	openat(d, "nope", O_RDONLY);     // ENOENT there
	openat(99, "nope", O_RDONLY);    // EBADF, not ENOENT
	open("made", O_WRONLY | O_CREAT, 0644); // makes it: success
	unlink("made");                  // (so that every run makes it)
	symlink("nope", "dangling");
	open("dangling", O_RDONLY);      // ENOENT: the link leads nowhere
	open("dangling", O_RDONLY | O_NOFOLLOW); // ELOOP, not ENOENT
	open("/proc/self/fd/99", O_RDONLY); // the caller's own: ENOENT
	close(d);                        // an open fd: released
	close(99);                       // EBADF: not open
	if (setgid(65534) != 0 || setuid(65534) != 0)
		return 3;
	stat("private/g", &st);          // EACCES for nobody, not the tracer's success
	open("private/nope", O_RDONLY);  // EACCES for nobody, not the tracer's ENOENT
	return 0;
}
