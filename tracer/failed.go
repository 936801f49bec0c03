package tracer

// Failed says which failed calls a capture backend delivers, or the strace
// reader reads: the one spelling of the choice for the three of them.
//
// The analysis uses one kind of failed call only, the failed lookup (a call
// of tracer/linux's lookup column that failed with linux.LookupErrnos: the
// path, or a directory of it, is not there), which lowers to a Missing
// statement. In a Puppet run four calls in five fail, nearly all of them
// others (Ruby's readlink of every prefix of every path it loads fails with
// EINVAL), so the default leaves them out where it costs least.
type Failed uint8

const (
	// FailedLookups, the default, delivers of the failed calls only the
	// failed lookups, with their arguments decoded. The others are not
	// delivered: the eBPF program drops them in the kernel, the ptrace
	// tracer emits nothing for them (and predicts what it can, so as not
	// to stop twice), the strace reader counts them without decoding them
	// (Reader.DroppedFailed).
	FailedLookups Failed = iota
	// FailedAll delivers every failed call with its Ret and Errno and its
	// arguments decoded (the strings a call names; not what a failed call
	// would have read or written): a saved trace that a reader can follow
	// call by call. It costs: the eBPF program reads every failed call's
	// strings, the ptrace tracer predicts nothing, the strace reader
	// decodes every line.
	FailedAll
)

func (f Failed) String() string {
	if f == FailedAll {
		return "all"
	}
	return "lookups"
}
