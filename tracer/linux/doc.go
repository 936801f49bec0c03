// Package linux holds what fsmove knows of the x86_64 Linux system-call
// interface, once: the calls the tracers stop and how each argument is laid
// out (syscalls.go), the kernel's names and numbers of every system call and
// errno (names_gen.go, generated from the kernel headers), and the errno
// texts strace prints. The tracers (ptrace, eBPF, strace's filter) and the
// lowering derive their tables from it. It imports nothing of fsmove.
package linux

//go:generate go run ./internal/gennames -o names_gen.go
