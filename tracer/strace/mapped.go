package strace

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"syscall"
)

// A trace file is read through a memory mapping when it can be: its lines
// are then slices of the mapping, which no read copies into a buffer and no
// chunk copies again (the splitter's whole mode). Pages the scan has left
// behind are given back as it goes (dropBehind), so that the process's
// resident memory stays bounded whatever the trace's length: the mapping is
// read-only and private, so a page given back is read again from the page
// cache if anything touches it, never lost.

// mapFile maps the text of f, a file Open opened, or returns nil when it
// cannot: not a regular file, empty, compressed (it is decompressed as a
// stream), too large for the address space, or mmap refused.
func mapFile(f *os.File) []byte {
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() == 0 || info.Size() != int64(int(info.Size())) {
		return nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(info.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	if isCompressedMagic(data) {
		syscall.Munmap(data)
		return nil
	}
	syscall.Madvise(data, syscall.MADV_SEQUENTIAL) // read-ahead; a hint only
	return data
}

// Resident pages of a mapped trace: the splitter gives back the pages more
// than keptBehind bytes behind its position, dropBatch bytes at a time. The
// chunks in flight of a parallel scan (at most maxChunksInFlight of about
// defaultChunkSize to twice that: 2 MiB) lie within keptBehind of it; were
// one not, its pages would only be read again.
// (Variables only so that a test can make them tiny.)
var (
	keptBehind = 8 << 20
	dropBatch  = 1 << 20
)

// dropBehind gives back the pages of a mapped trace that lie well behind
// the splitter's position.
func (s *lineSplitter) dropBehind() {
	upTo := s.start - keptBehind
	if upTo-s.dropped < dropBatch {
		return
	}
	upTo -= upTo % syscall.Getpagesize()
	if upTo <= s.dropped {
		return
	}
	syscall.Madvise(s.buf[s.dropped:upTo], syscall.MADV_DONTNEED)
	s.dropped = upTo
}

// errFileChanged is the error of a read that faulted on a mapped trace
// file: the file was cut short while it was read.
var errFileChanged = errors.New("the trace file was cut short while it was read")

// catchFault turns a memory fault on a mapped trace file into an error in
// *err (debug.SetPanicOnFault must be on for the goroutine). Any other
// panic goes on. Call it deferred.
func catchFault(err *error) {
	if e := recover(); e != nil {
		*err = faultError(e)
	}
}

// faultError is the error of e, a value recovered from a panic, when it is
// a memory fault; any other panic goes on.
func faultError(e any) error {
	if _, fault := e.(interface{ Addr() uintptr }); !fault {
		panic(e)
	}
	return fmt.Errorf("%w (%v)", errFileChanged, e)
}

// faultsAsErrors makes a memory fault on this goroutine a panic that
// catchFault can recover, and returns the previous setting.
func faultsAsErrors() bool { return debug.SetPanicOnFault(true) }
