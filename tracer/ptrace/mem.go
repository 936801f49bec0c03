package ptrace

import (
	"bytes"
	"encoding/binary"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pathMax is PATH_MAX: a path string is read up to this many bytes.
const pathMax = 4096

const pageSize = 4096

// memReader reads a tracee's memory with process_vm_readv. Its buffers are
// reused between calls.
type memReader struct {
	chunk [pageSize]byte
	buf   []byte
	// last is the last string str read, for the same read again within
	// one stop (a predicted stat's path, then its event's): forget clears
	// it at every stop, since a tracee that ran may have changed it.
	last struct {
		pid       int
		addr      uint64
		max       int
		s         string
		truncated bool
		ok        bool
	}
}

// forget drops what str remembers (at every stop).
func (m *memReader) forget() { m.last.ok = false }

// read fills b from the tracee's address addr; it returns how many bytes
// were read (fewer at an unmapped page).
func (m *memReader) read(pid int, addr uint64, b []byte) int {
	if len(b) == 0 {
		return 0
	}
	local := []unix.Iovec{{Base: &b[0], Len: uint64(len(b))}}
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(b)}}
	n, err := unix.ProcessVMReadv(pid, local, remote, 0)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// str reads a NUL-terminated string of at most max bytes. truncated is set
// when no NUL came within max bytes; ok is false when nothing could be
// read (a bad pointer).
func (m *memReader) str(pid int, addr uint64, max int) (s string, truncated, ok bool) {
	if l := &m.last; l.ok && l.pid == pid && l.addr == addr && l.max == max {
		return l.s, l.truncated, true
	}
	s, truncated, ok = m.readStr(pid, addr, max)
	if ok {
		m.last.pid, m.last.addr, m.last.max, m.last.s, m.last.truncated, m.last.ok = pid, addr, max, s, truncated, true
	}
	return s, truncated, ok
}

// readStr is str without the memory of the last string.
func (m *memReader) readStr(pid int, addr uint64, max int) (s string, truncated, ok bool) {
	m.buf = m.buf[:0]
	for len(m.buf) < max {
		// Read up to the end of the page, so that a string near the end of
		// a mapping never makes the read fail.
		n := pageSize - int(addr%pageSize)
		if n > max-len(m.buf) {
			n = max - len(m.buf)
		}
		got := m.read(pid, addr, m.chunk[:n])
		if got == 0 {
			if len(m.buf) == 0 {
				return "", false, false
			}
			return string(m.buf), true, true
		}
		c := m.chunk[:got]
		if i := bytes.IndexByte(c, 0); i >= 0 {
			m.buf = append(m.buf, c[:i]...)
			return string(m.buf), false, true
		}
		m.buf = append(m.buf, c...)
		addr += uint64(got)
		if got < n {
			return string(m.buf), true, true
		}
	}
	return string(m.buf), true, true
}

// bytes reads n bytes (or as many as can be read) as a string.
func (m *memReader) bytes(pid int, addr uint64, n int) string {
	if n <= 0 {
		return ""
	}
	if cap(m.buf) < n {
		m.buf = make([]byte, n)
	}
	b := m.buf[:n]
	got := m.read(pid, addr, b)
	return string(b[:got])
}

// u64 reads one 64-bit little-endian word.
func (m *memReader) u64(pid int, addr uint64) (uint64, bool) {
	var w [8]byte
	if m.read(pid, addr, w[:]) != 8 {
		return 0, false
	}
	return binary.LittleEndian.Uint64(w[:]), true
}

// iovecData reads the data of an iovec array of cnt entries, up to max
// bytes in all; truncated is set when there was more.
func (m *memReader) iovecData(pid int, addr uint64, cnt int, max int) (data string, truncated bool) {
	const iovSize = int(unsafe.Sizeof(unix.Iovec{}))
	if cnt <= 0 {
		return "", false
	}
	if cnt > 64 {
		cnt, truncated = 64, true
	}
	vec := make([]byte, cnt*iovSize)
	if m.read(pid, addr, vec) != len(vec) {
		return "", true
	}
	var out []byte
	for i := 0; i < cnt && len(out) < max; i++ {
		base := binary.LittleEndian.Uint64(vec[i*iovSize:])
		n := int(binary.LittleEndian.Uint64(vec[i*iovSize+8:]))
		if n > max-len(out) || n < 0 {
			n, truncated = max-len(out), true
		}
		chunk := make([]byte, n)
		got := m.read(pid, base, chunk)
		out = append(out, chunk[:got]...)
	}
	return string(out), truncated
}

// iovecTotal sums the lengths of an iovec array of cnt entries; ok is
// false when the array cannot be read or a length is beyond any write.
func (m *memReader) iovecTotal(pid int, addr uint64, cnt int) (total uint64, ok bool) {
	const iovSize = int(unsafe.Sizeof(unix.Iovec{}))
	if cnt <= 0 {
		return 0, cnt == 0
	}
	if cnt*iovSize > len(m.chunk) {
		return 0, false
	}
	vec := m.chunk[:cnt*iovSize]
	if m.read(pid, addr, vec) != len(vec) {
		return 0, false
	}
	for i := 0; i < cnt; i++ {
		n := binary.LittleEndian.Uint64(vec[i*iovSize+8:])
		if n > 1<<62 {
			return 0, false
		}
		total += n
	}
	return total, true
}
