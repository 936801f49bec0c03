//go:build ignore

// SPDX-License-Identifier: GPL-2.0
/* fsmove's eBPF tracer: the system calls the lowering table needs, made by
 * the tasks of one cgroup (a container), as completed calls with their
 * arguments, sent to user space through one ring buffer.
 *
 * What to read for each call is not decided here: user space fills the
 * plans map from its syscall table (tracer/ebpf/syscalls.go), so that adding
 * a call is adding a Go row, not C code.
 *
 * Calls are captured at their exit only (a BTF raw tracepoint, which has no
 * perf glue): the arguments are read from the user registers the kernel
 * saved at the call's entry, which still hold them, and a call is ruled out
 * by its number and return value before anything else is done. Hooking the
 * entry of every system call of the machine, and keeping each traced call
 * in a hash map until its exit, cost a Puppet run as much again as the rest
 * of the capture (docs/DESIGN.md, "eBPF capture").
 *
 * Paths are read at the exit too: by then the kernel has copied them
 * itself, so their pages are resident and bpf_probe_read_user_str (which
 * cannot fault pages in) succeeds. A successful exec is the exception: it
 * has replaced the memory and the registers, so its program path is the
 * kernel's own copy, kept at the exec (sched_process_exec), and its other
 * arguments are gone, its number too (on x86_64 a successful execveat
 * returns as execve): the event says F_ARGS_LOST, and user space tells
 * execveat from execve, and its directory fd, by that path. A failed exec
 * changed nothing: it is read like any call. */
#include "fsmove.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define PATH_MAX 4096
#define DATA_MAX 512 /* bytes kept of a write to fd 1 or 2: a marker line */
/* A write to another fd is sent, with all its data, when it is this short:
 * a pid written to a cgroup's cgroup.procs ("57\n"), as systemd does. */
#define SHORT_WRITE 32
#define MAX_NR 512
#define MAX_IOV 8

enum event_kind { EV_SYSCALL = 1, EV_EXIT = 2 };

/* How a call's arguments are read (struct plan.special). */
enum special {
	SP_NONE = 0,
	SP_WRITE = 1,      /* data: count bytes at args[1], fd 1 or 2 or a short write */
	SP_WRITEV = 2,     /* data: the iovecs at args[1], fd 1 or 2 or a short write */
	SP_STRUCT_U64 = 3, /* extra: the first u64 of the struct at args[a] */
	SP_INT_PAIR = 4,   /* extra: the two ints at args[a] (pipe's fds) */
};

struct plan {
	__u8 wanted;
	__u8 str0, str1; /* 1 + index of a string argument, 0 for none */
	__u8 exec;   /* an exec: str0 of a successful one is the kernel's copy, kept at the exec */
	__u8 special;
	__u8 special_arg;
	__u8 lookup; /* ENOENT/ENOTDIR failures are sent, with their strings */
	__u8 forks;  /* returns in the new child too (with 0): that return is not a call */
};

/* The program path of a successful exec, the kernel's copy. */
struct exec_path {
	__s32 len; /* bpf_probe_read_kernel_str's result */
	__u32 pad;
	char path[PATH_MAX];
};

/* Event flags. */
#define F_STR0_FAULT 1 /* str0 could not be read */
#define F_STR1_FAULT 2
#define F_DATA_FAULT 4
#define F_EXTRA_FAULT 8
#define F_ARGS_LOST 16 /* a successful exec: its register arguments are gone */

struct event {
	__u32 kind;
	__u32 tid;
	__s64 nr;
	__s64 ret;
	__u64 args[6];
	__u64 extra;
	__u16 len0, len1; /* bytes of the strings in buf, NUL included */
	__u16 data_len;   /* bytes of write data in buf (no strings then) */
	__u16 flags;
	__u32 pad;
	char buf[2 * PATH_MAX + DATA_MAX];
};

/* Set by user space before attaching. */
volatile const __u64 target_cgroup = 0;
/* Failed calls have no effect on the model but failed lookups; unless
 * keep_failed (tracer.FailedAll), the others are not sent at all (in a
 * Puppet run four calls in five fail, nearly all of them not lookups). */
volatile const __u8 keep_failed = 0;
volatile const __u32 target_level = 0; /* 0: exact cgroup; else ancestor level */
/* The pid namespace whose ids events carry (the container's), as the kernel
 * names it: the nsfs device (the kernel's dev_t, MKDEV(major, minor)) and
 * the inode of /proc/<pid>/ns/pid. pidns_ino 0: host ids. The maps are
 * keyed by host tids all the same: the exec handler's tracepoint gives host
 * ids, and a host tid is never reused while its task lives. */
/* stopped is set by Tracer.Stop: every program returns at once. Detaching
 * the programs instead waits for RCU grace periods, a quarter of a second
 * inside the traced step; they are detached later, in Tracer.Close. */
volatile __u32 stopped = 0;

volatile const __u64 pidns_dev = 0;
volatile const __u64 pidns_ino = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_NR);
	__type(key, __u32);
	__type(value, struct plan);
} plans SEC(".maps");

/* The path of each exec done but not yet returned from, by host tid. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct exec_path);
} exec_paths SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct event);
} event_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exec_path);
} exec_scratch SEC(".maps");

/* drops[0] counts events lost because the ring buffer was full; drops[1]
 * calls lost because the exec_paths map was full, or because
 * their task was not in the pid namespace pidns_ino (its ids there cannot be
 * known: a task of the container's cgroup outside the container's pid
 * namespace, or in a namespace nested in it); drops[2] counts the calls, not
 * lost, of tasks of the pid namespace outside the target cgroup (in_target's
 * OUTSIDE). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);
} events SEC(".maps");

static __always_inline void count_drop(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &which);
	if (n)
		__sync_fetch_and_add(n, 1);
}

/* arg_at returns args[i] with a constant index, as the verifier wants for
 * the tracepoint context. */
static __always_inline __u64 arg_at(const __u64 *args, __u32 i)
{
	switch (i) {
	case 0: return args[0];
	case 1: return args[1];
	case 2: return args[2];
	case 3: return args[3];
	case 4: return args[4];
	case 5: return args[5];
	}
	return 0;
}

/* Waking the reader for every event costs a context switch per call: the
 * reader is woken only by the event that makes this much wait, and
 * otherwise polls (Tracer.Next, pollInterval). Waking it on every event
 * while that much waits would turn a reader stall of a few milliseconds
 * into thousands of wakeups. */
#define WAKEUP_BYTES (256 << 10)

static __always_inline long output(void *data, __u64 size)
{
	__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	__u64 flags = avail < WAKEUP_BYTES && avail + size >= WAKEUP_BYTES ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	return bpf_ringbuf_output(&events, data, size, flags);
}

/* event_tid returns the id events carry for the current task, whose host
 * tid is host: host itself, or its tid in the pid namespace pidns_ino; 0
 * when the task is not in that namespace (counted as a drop). */
static __always_inline __u32 event_tid(__u32 host)
{
	if (pidns_ino == 0)
		return host;
	struct bpf_pidns_info ns = {};
	if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns)) != 0 || ns.pid == 0) {
		count_drop(1);
		return 0;
	}
	return ns.pid;
}

/* short_write says whether a write to an fd other than 1 and 2 is short
 * enough to be sent: count bytes (write, pwrite64), or the iovecs at args[1]
 * totalling so little (writev; at most MAX_IOV of them). */
static __always_inline int short_write(__u8 special, const __u64 *args)
{
	if (special == SP_WRITE)
		return args[2] <= SHORT_WRITE;
	__u64 cnt = args[2];
	if (cnt > MAX_IOV)
		return 0;
	const struct iovec *iov = (const struct iovec *)args[1];
	__u64 total = 0;
	for (int i = 0; i < MAX_IOV; i++) {
		if (i >= cnt)
			break;
		struct iovec v;
		if (bpf_probe_read_user(&v, sizeof(v), &iov[i]) != 0)
			return 0;
		total += v.iov_len;
		if (total > SHORT_WRITE)
			return 0;
	}
	return 1;
}

/* in_target says whether the current task is traced: IN_CGROUP when it is in
 * the target cgroup (or below it), OUTSIDE when it is not but belongs to the
 * pid namespace pidns_ino (a process of the container that left the cgroup
 * it was put in: traced all the same, and its calls counted, for the run
 * cannot be trusted), 0 otherwise. */
#define IN_CGROUP 1
#define OUTSIDE 2
static __always_inline int in_target(void)
{
	__u64 id = target_level == 0 ? bpf_get_current_cgroup_id() : bpf_get_current_ancestor_cgroup_id(target_level);
	if (id == target_cgroup)
		return IN_CGROUP;
	if (pidns_ino == 0)
		return 0;
	struct bpf_pidns_info ns = {};
	if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns)) != 0 || ns.pid == 0)
		return 0;
	/* runc's own process for a docker exec joins the pid namespace a
	 * moment before runc puts it in the cgroup, and is named so until it
	 * execs the command: it is not yet in the container, not out of it. */
	char comm[8];
	if (bpf_get_current_comm(comm, sizeof(comm)) == 0 && comm[0] == 'r' && comm[1] == 'u' && comm[2] == 'n' &&
	    comm[3] == 'c' && comm[4] == ':' && comm[5] == '[')
		return 0;
	return OUTSIDE;
}

/* read_str reads the string argument at ptr into e->buf at off, and returns
 * its length (NUL included), or 0 after setting fault in e->flags. */
static __always_inline __u32 read_str(struct event *e, __u32 off, const void *ptr, __u16 fault)
{
	off &= (2 * PATH_MAX - 1);
	if (off > PATH_MAX)
		return 0;
	long n = bpf_probe_read_user_str(&e->buf[off], PATH_MAX, ptr);
	if (n <= 0) {
		e->flags |= fault;
		return 0;
	}
	return n;
}

static __always_inline void read_writev(struct event *e, const struct iovec *iov, __u64 cnt)
{
	__u32 off = 0;
	for (int i = 0; i < MAX_IOV; i++) {
		if (i >= cnt || off >= DATA_MAX)
			break;
		struct iovec v;
		if (bpf_probe_read_user(&v, sizeof(v), &iov[i]) != 0) {
			e->flags |= F_DATA_FAULT;
			break;
		}
		__u64 n = v.iov_len;
		if (n > DATA_MAX - off)
			n = DATA_MAX - off;
		off &= (DATA_MAX - 1);
		n &= (DATA_MAX - 1) | DATA_MAX;
		if (n == 0)
			continue;
		if (off + n > DATA_MAX)
			break;
		if (bpf_probe_read_user(&e->buf[off], n, v.iov_base) != 0) {
			e->flags |= F_DATA_FAULT;
			break;
		}
		off += n;
	}
	e->data_len = off;
}

/* sys_exit sends a completed call. Every system call of the machine comes
 * here: what rules a call out without a helper call (its number, its
 * result, a write's fd) comes first, the cgroup check after. ctx holds the
 * tracepoint's arguments: the user registers of the call and its result. */
SEC("tp_btf/sys_exit")
int sys_exit(__u64 *ctx)
{
	if (stopped)
		return 0;
	const struct pt_regs *regs = (const struct pt_regs *)ctx[0];
	__s64 ret = (__s64)ctx[1];
	__s64 nr = regs->orig_ax;
	if (nr < 0 || nr >= MAX_NR)
		return 0;
	__u32 key = nr;
	struct plan *p = bpf_map_lookup_elem(&plans, &key);
	if (!p || !p->wanted)
		return 0;
	if (p->forks && ret == 0)
		return 0; /* the new child's return from clone, fork or vfork */
	/* A failed lookup (the path or a directory of it is not there) is
	 * sent with its path: a resource that failed because another had not
	 * made the path yet is an observed fault. Other failed calls have no
	 * effect on the model (in a Puppet run four calls in five fail). */
	int lookup_failed = p->lookup && (ret == -ENOENT || ret == -ENOTDIR);
	int failed = ret < 0 && ret > -4096;
	if (failed && !keep_failed && !lookup_failed)
		return 0;
	__u64 args[6] = {regs->di, regs->si, regs->dx, regs->r10, regs->r8, regs->r9};
	/* Writes: to stdout and stderr (Puppet's log lines, the block
	 * markers), and short ones to any fd (a pid to cgroup.procs). */
	if ((p->special == SP_WRITE || p->special == SP_WRITEV) && args[0] != 1 && args[0] != 2 &&
	    !short_write(p->special, args))
		return 0;
	int where = in_target();
	if (!where)
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	/* A successful exec: its path, kept at the exec. */
	struct exec_path *ep = p->exec && !failed ? bpf_map_lookup_elem(&exec_paths, &tid) : 0;
	if (where == OUTSIDE)
		count_drop(2);
	__u32 id = event_tid(tid);
	__u32 zero = 0;
	struct event *e = bpf_map_lookup_elem(&event_scratch, &zero);
	if (id == 0 || !e) {
		if (ep)
			bpf_map_delete_elem(&exec_paths, &tid);
		return 0;
	}
	e->kind = EV_SYSCALL;
	e->tid = id;
	e->nr = nr;
	e->ret = ret;
	for (int i = 0; i < 6; i++)
		e->args[i] = args[i];
	e->extra = 0;
	e->len0 = e->len1 = e->data_len = e->flags = 0;

	__u32 used = 0;
	/* A failed call has no effect on the model: its arguments are not
	 * read, but for a failed lookup's strings (and every failed call's
	 * with keep_failed: tracer.FailedAll). */
	if (e->ret >= 0 || lookup_failed || keep_failed) {
		if (p->exec && !failed) {
			e->flags |= F_ARGS_LOST;
			if (ep && ep->len > 0 && ep->len <= PATH_MAX) {
				if (bpf_probe_read_kernel(e->buf, PATH_MAX, ep->path) == 0)
					e->len0 = ep->len;
			} else {
				e->flags |= F_STR0_FAULT;
			}
		} else if (p->str0 >= 1 && p->str0 <= 6) {
			e->len0 = read_str(e, 0, (void *)arg_at(e->args, p->str0 - 1), F_STR0_FAULT);
		}
		if (p->str1 >= 1 && p->str1 <= 6 && !(e->flags & F_ARGS_LOST))
			e->len1 = read_str(e, e->len0, (void *)arg_at(e->args, p->str1 - 1), F_STR1_FAULT);
		used = e->len0 + e->len1;
	}
	if (e->ret >= 0) {
		__u64 extra_ptr = arg_at(e->args, p->special_arg);
		switch (p->special) {
		case SP_WRITE: {
			__u64 n = e->args[2];
			if (n > DATA_MAX)
				n = DATA_MAX;
			n &= (DATA_MAX - 1) | DATA_MAX;
			if (n > 0 && bpf_probe_read_user(e->buf, n, (void *)e->args[1]) != 0)
				e->flags |= F_DATA_FAULT;
			else
				e->data_len = n;
			used = e->data_len;
			break;
		}
		case SP_WRITEV:
			read_writev(e, (const struct iovec *)e->args[1], e->args[2]);
			used = e->data_len;
			break;
		case SP_STRUCT_U64:
			if (bpf_probe_read_user(&e->extra, 8, (void *)extra_ptr) != 0)
				e->flags |= F_EXTRA_FAULT;
			break;
		case SP_INT_PAIR:
			if (bpf_probe_read_user(&e->extra, 8, (void *)extra_ptr) != 0)
				e->flags |= F_EXTRA_FAULT;
			break;
		}
	}
	if (ep)
		bpf_map_delete_elem(&exec_paths, &tid);

	if (used > sizeof(e->buf))
		used = sizeof(e->buf);
	__u64 size = __builtin_offsetof(struct event, buf) + used;
	if (output(e, size) != 0)
		count_drop(0);
	return 0;
}

SEC("tracepoint/sched/sched_process_exit")
int sched_process_exit(void *ctx)
{
	if (stopped)
		return 0;
	if (!in_target())
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_delete_elem(&exec_paths, &tid);
	__u32 id = event_tid(tid);
	if (id == 0)
		return 0;
	__u32 zero = 0;
	struct event *e = bpf_map_lookup_elem(&event_scratch, &zero);
	if (!e)
		return 0;
	/* The wait status, as strace prints it from waitpid: an exit status
	 * << 8, or the signal that killed the task. */
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	int code = 0;
	bpf_probe_read_kernel(&code, sizeof(code), &task->exit_code);
	e->kind = EV_EXIT;
	e->tid = id;
	e->nr = -1;
	e->ret = code;
	e->len0 = e->len1 = e->data_len = e->flags = 0;
	if (output(e, __builtin_offsetof(struct event, buf)) != 0)
		count_drop(0);
	return 0;
}

/* At a successful exec: keep the program's path, the kernel's own copy
 * (the tracepoint's filename: the path as execve was given it, or
 * /dev/fd/<dirfd>/<path> for an execveat relative to a directory fd), for
 * sys_exit, which finds the registers and memory of the call replaced.
 * It is kept under pid, the id the task returns from execve with: a thread
 * other than the leader that calls execve takes the leader's pid. The
 * tracepoint's pids are host ids, as the map's keys; sys_exit then reports
 * the call under the leader's id (in the pid namespace when one is set), as
 * strace shows it. */
SEC("tracepoint/sched/sched_process_exec")
int sched_process_exec(struct trace_event_raw_sched_process_exec *ctx)
{
	if (stopped)
		return 0;
	if (!in_target())
		return 0;
	__u32 now = ctx->pid;
	__u32 zero = 0;
	struct exec_path *ep = bpf_map_lookup_elem(&exec_scratch, &zero);
	if (!ep)
		return 0;
	__u32 off = ctx->__data_loc_filename & 0xFFFF;
	ep->len = bpf_probe_read_kernel_str(ep->path, sizeof(ep->path), (void *)ctx + off);
	if (bpf_map_update_elem(&exec_paths, &now, ep, BPF_ANY) != 0)
		count_drop(1);
	return 0;
}
