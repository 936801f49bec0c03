package runner

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/fsmove/fsmove/internal/printable"
	"github.com/fsmove/fsmove/internal/term"
)

// Progress shows the steps of a run (image, container, modules, apply,
// copy, analyze) with their elapsed time. On a terminal the running step's
// line is redrawn every second; elsewhere (CI logs) each step prints one
// line when it starts and one when it ends; quiet prints nothing.
//
// Anything else written to the terminal while a step's line is drawn must
// go through Writer (or come after the step has ended), so that the line is
// cleared first.
type Progress struct {
	w     io.Writer
	tty   bool
	quiet bool

	mu      sync.Mutex
	current *Step
	// drawn: a step's line is on the screen, without its newline.
	drawn bool
	// midLine: text written through Writer did not end its line; the
	// step's line is not redrawn over it.
	midLine bool
}

// Writer returns a writer for messages and output that appear while steps
// run (warnings, -v output). On a terminal each write first clears the
// step's line, which the next tick draws again below what was written.
func (p *Progress) Writer(w io.Writer) io.Writer {
	return &progressWriter{p: p, w: w}
}

type progressWriter struct {
	p *Progress
	w io.Writer
}

// Write writes b with its control characters escaped (printable.Lines):
// what comes here is apt's and Puppet's output, which a module decides.
func (pw *progressWriter) Write(b []byte) (int, error) {
	p := pw.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	if _, err := io.WriteString(pw.w, printable.Lines(string(b))); err != nil {
		return 0, err
	}
	if p.tty && len(b) > 0 {
		p.midLine = b[len(b)-1] != '\n'
	}
	return len(b), nil
}

// clearLocked erases a drawn step line; p.mu is held.
func (p *Progress) clearLocked() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// NewProgress writes to w; it redraws lines only when w is a terminal.
func NewProgress(w io.Writer, quiet bool) *Progress {
	return &Progress{w: w, tty: term.IsTerminal(w), quiet: quiet}
}

// Step is one running step.
type Step struct {
	p      *Progress
	name   string
	msg    string
	start  time.Time
	stop   chan struct{}
	done   sync.WaitGroup
	closed bool
}

// Start begins a step. A step still running is ended first.
func (p *Progress) Start(name, msg string) *Step {
	msg = printable.String(msg)
	s := &Step{p: p, name: name, msg: msg, start: time.Now(), stop: make(chan struct{})}
	p.mu.Lock()
	prev := p.current
	p.current = s
	p.mu.Unlock()
	if prev != nil {
		prev.Done("")
	}
	if p.quiet {
		return s
	}
	if !p.tty {
		p.mu.Lock()
		fmt.Fprintf(p.w, "fsmove: %-9s %s\n", name, msg)
		p.mu.Unlock()
		return s
	}
	s.draw()
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.draw()
			}
		}
	}()
	return s
}

// Update changes the step's message.
func (s *Step) Update(msg string) {
	msg = printable.String(msg)
	s.p.mu.Lock()
	s.msg = msg
	if !s.p.tty && !s.p.quiet {
		fmt.Fprintf(s.p.w, "fsmove: %-9s %s\n", s.name, msg)
	}
	s.p.mu.Unlock()
	if s.p.tty && !s.p.quiet {
		s.draw()
	}
}

func (s *Step) draw() {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	if s.closed || s.p.midLine {
		return
	}
	fmt.Fprintf(s.p.w, "\r\033[K  … %-9s %s  %s", s.name, s.msg, formatElapsed(time.Since(s.start)))
	s.p.drawn = true
}

// Done ends the step successfully and returns its duration; result, when
// not empty, replaces the message on the final line.
func (s *Step) Done(result string) time.Duration { return s.end(true, result) }

// Fail ends the step as failed.
func (s *Step) Fail(result string) time.Duration { return s.end(false, result) }

func (s *Step) end(ok bool, result string) time.Duration {
	result = printable.String(result)
	d := time.Since(s.start)
	s.p.mu.Lock()
	if s.closed {
		s.p.mu.Unlock()
		return d
	}
	s.closed = true
	if s.p.current == s {
		s.p.current = nil
	}
	s.p.mu.Unlock()
	close(s.stop)
	s.done.Wait()
	if s.p.quiet {
		return d
	}
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	if result == "" {
		result = s.msg
	}
	mark, word := "✓", "done"
	if !ok {
		mark, word = "✗", "FAILED"
	}
	if s.p.tty {
		if s.p.midLine {
			fmt.Fprintln(s.p.w)
			s.p.midLine = false
		}
		fmt.Fprintf(s.p.w, "\r\033[K  %s %-9s %s  %s\n", mark, s.name, result, formatElapsed(d))
		s.p.drawn = false
	} else {
		fmt.Fprintf(s.p.w, "fsmove: %-9s %s in %s: %s\n", s.name, word, formatElapsed(d), result)
	}
	return d
}

// formatElapsed prints 0.4s, 12.3s, 2m05s.
func formatElapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
