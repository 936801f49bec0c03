/* Minimal kernel types for fsmove.bpf.c, instead of a 3 MB vmlinux.h.
 * The sched tracepoint records are laid out as in
 * /sys/kernel/tracing/events/sched/<name>/format; they are stable ABI (perf
 * and ftrace users read them). struct pt_regs is relocated (CO-RE). */
#ifndef FSMOVE_H
#define FSMOVE_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;

/* bpf_helper_defs.h needs these names to exist. */
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_RINGBUF = 27,
};
enum { BPF_ANY = 0 };
/* bpf_ringbuf_output flags and bpf_ringbuf_query's question. */
enum { BPF_RB_NO_WAKEUP = 1, BPF_RB_FORCE_WAKEUP = 2 };
enum { BPF_RB_AVAIL_DATA = 0 };

struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
};

/* The user registers a task made its system call with (x86_64), as the
 * kernel saved them at the call's entry; they still hold the call's
 * number and arguments at its exit. Only the fields read are declared:
 * CO-RE relocates each by name against the kernel's own struct pt_regs. */
struct pt_regs {
	unsigned long r10;
	unsigned long r9;
	unsigned long r8;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
} __attribute__((preserve_access_index));

/* The task running the program: at sched/sched_process_exit, exit_code
 * holds the wait status its parent will see (do_exit sets it before the
 * tracepoint). Relocated by name (CO-RE), like struct pt_regs. */
struct task_struct {
	int exit_code;
} __attribute__((preserve_access_index));

/* sched/sched_process_exec: pid is the pid after exec, old_pid the thread
 * that called execve (they differ when a thread other than the leader
 * execs: the caller takes the leader's pid). */
struct trace_event_raw_sched_process_exec {
	struct trace_entry ent;
	__u32 __data_loc_filename;
	int pid;
	int old_pid;
};

/* bpf_get_ns_current_pid_tgid's answer: the task's ids in a pid namespace. */
struct bpf_pidns_info {
	__u32 pid;
	__u32 tgid;
};

/* errno values (asm-generic/errno-base.h) of a failed lookup. */
#define ENOENT 2
#define ENOTDIR 20

/* User-space iovec (writev). */
struct iovec {
	void *iov_base;
	__u64 iov_len;
};

#endif
