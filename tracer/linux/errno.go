package linux

import "strconv"

// SyscallNumber is a system call name and its x86_64 number.
type SyscallNumber struct {
	Name string
	Nr   int
}

// Errno is one errno: its name, its number and the text strace prints after
// it ("" when strace prints none).
type Errno struct {
	Name    string
	Nr      int
	Message string
}

// errnoByNr maps a number to its first name in Errnos (EAGAIN, not its
// alias EWOULDBLOCK), as strace prints it.
var errnoByNr = func() map[int]*Errno {
	m := make(map[int]*Errno, len(Errnos))
	for i := range Errnos {
		if _, ok := m[Errnos[i].Nr]; !ok {
			m[Errnos[i].Nr] = &Errnos[i]
		}
	}
	return m
}()

// errnoByName maps every name of Errnos to its row.
var errnoByName = func() map[string]*Errno {
	m := make(map[string]*Errno, len(Errnos))
	for i := range Errnos {
		m[Errnos[i].Name] = &Errnos[i]
	}
	return m
}()

// ErrnoName returns the name strace prints for errno nr (a call's -ret):
// EAGAIN for 11, ERESTARTSYS for 512, and E<nr> for a number no header
// names.
func ErrnoName(nr int) string {
	if e, ok := errnoByNr[nr]; ok {
		return e.Name
	}
	return "E" + strconv.Itoa(nr)
}

// ErrnoMessage returns the text strace prints after the errno name, and
// whether it prints one.
func ErrnoMessage(name string) (string, bool) {
	e, ok := errnoByName[name]
	if !ok || e.Message == "" {
		return "", false
	}
	return e.Message, true
}

// IsRestart reports whether errno is one of the kernel's restart codes,
// which strace prints after "= ?": the call did not return, the kernel
// restarts it (or returns EINTR) after a signal.
func IsRestart(errno string) bool {
	switch errno {
	case "ERESTARTSYS", "ERESTARTNOINTR", "ERESTARTNOHAND", "ERESTART_RESTARTBLOCK":
		return true
	}
	return false
}
