package ptrace

import (
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/linux"
	"golang.org/x/sys/unix"
)

// regArg returns argument i of the call from the registers of its entry
// (x86_64: rdi, rsi, rdx, r10, r8, r9).
func regArg(r *unix.PtraceRegs, i int) uint64 {
	switch i {
	case 0:
		return r.Rdi
	case 1:
		return r.Rsi
	case 2:
		return r.Rdx
	case 3:
		return r.R10
	case 4:
		return r.R8
	case 5:
		return r.R9
	}
	return 0
}

// decodeArgs appends the call's arguments to tk.ev, one per row entry.
// Buffers the call fills (getcwd's path, pipe's fds) are read only when
// filled is set (a successful call at its exit).
func (l *loop) decodeArgs(tk *task, filled bool) {
	ev := &tk.ev
	pid := tk.tid
	// How much written data is read: Options.DataBytes of a write to fd 1
	// or 2, all of a short write to another fd (see markerWanted).
	dataBytes := l.opts.DataBytes
	if fd := int32(uint32(tk.regs.Rdi)); tk.row.marker && fd != 1 && fd != 2 && dataBytes < linux.ShortWrite {
		dataBytes = linux.ShortWrite
	}
	for i, kind := range tk.row.args {
		v := regArg(&tk.regs, i)
		var a tracer.Arg
		if tk.row.names != nil {
			a.Name = tk.row.names[i]
		}
		switch kind.Value() {
		case linux.ValInt32:
			a.Kind, a.Int = tracer.ArgInt, int64(int32(uint32(v)))
		case linux.ValUint32:
			a.Kind, a.Int = tracer.ArgInt, int64(uint32(v))
		case linux.ValInt64:
			a.Kind, a.Int = tracer.ArgInt, int64(v)
		case linux.ValPointer:
			a = pointerArg(a, v)
		case linux.ValString:
			if v == 0 {
				a.Kind = tracer.ArgNull
				break
			}
			s, truncated, ok := l.mem.str(pid, v, pathMax)
			if !ok {
				a.Kind, a.Int = tracer.ArgPtr, int64(v)
				break
			}
			a.Kind, a.Str, a.Truncated = tracer.ArgStr, s, truncated
		case linux.ValWriteData:
			n := int64(regArg(&tk.regs, i+1))
			if filled && ev.Ret >= 0 && ev.Ret < n {
				n = ev.Ret // what was written
			}
			if n < 0 {
				n = 0
			}
			a.Kind = tracer.ArgStr
			if n > int64(dataBytes) {
				n, a.Truncated = int64(dataBytes), true
			}
			a.Str = l.mem.bytes(pid, v, int(n))
		case linux.ValWriteIovec:
			a.Kind = tracer.ArgArray
			a.Str, _ = l.mem.iovecData(pid, v, int(int32(uint32(regArg(&tk.regs, i+1)))), dataBytes)
		case linux.ValOutString:
			if !filled || v == 0 || ev.Ret <= 0 {
				a = pointerArg(a, v)
				break
			}
			s, _, ok := l.mem.str(pid, v, int(min(ev.Ret, pathMax)))
			if !ok {
				a = pointerArg(a, v)
				break
			}
			a.Kind, a.Str = tracer.ArgStr, s
		case linux.ValOutIntPair:
			w, ok := l.mem.u64(pid, v)
			if !filled || !ok {
				a = pointerArg(a, v)
				break
			}
			a.Kind = tracer.ArgArray
			a.Ints = []int64{int64(int32(uint32(w))), int64(int32(uint32(w >> 32)))}
		case linux.ValStructU64:
			// Both structs start with their u64 flags member.
			flags, ok := l.mem.u64(pid, v)
			if !ok {
				a = pointerArg(a, v)
				break
			}
			a.Kind, a.Int = tracer.ArgStruct, int64(flags)
		}
		ev.Args = append(ev.Args, a)
	}
}

// pointerArg is an opaque pointer argument: NULL or its value.
func pointerArg(a tracer.Arg, v uint64) tracer.Arg {
	if v == 0 {
		a.Kind = tracer.ArgNull
	} else {
		a.Kind, a.Int = tracer.ArgPtr, int64(v)
	}
	return a
}
