package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// progress draws a progress bar on stderr while a long command (export,
// stats) runs, when stderr is a terminal; otherwise it stays silent, so
// scripts and logs see only results. Progress is the position of the
// current cycle in the window being read, which works for a whole file and
// for a --cycles window alike.
type progress struct {
	w          io.Writer
	start, end uint64
	last       time.Time
	drawn      bool
}

func newProgress(stderr io.Writer, start, end uint64) *progress {
	if !drawsOn(stderr) || end <= start {
		return nil
	}
	return &progress{w: stderr, start: start, end: end}
}

// drawsOn says whether w is a terminal; a variable so that tests can
// watch a command draw its bar into a buffer.
var drawsOn = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}

// isTerminal uses x/term rather than a termios ioctl so that the tool
// builds for every GOOS (macOS has no TCGETS, Windows no termios).
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// update is the callback the exporters and the analysis call.
func (p *progress) update(events, cycle uint64) {
	if p == nil {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	frac := 0.0
	if cycle > p.start {
		frac = min(1, float64(cycle-p.start)/float64(p.end-p.start))
	}
	const width = 30
	n := int(frac * width)
	fmt.Fprintf(p.w, "\r[%s%s] %3.0f%%  %d events", strings.Repeat("=", n), strings.Repeat(" ", width-n), 100*frac, events)
	p.drawn = true
}

// done erases the bar.
func (p *progress) done() {
	if p != nil && p.drawn {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 60))
	}
}

// progressFor sets up the bar for a query of r.
func progressFor(c *config, stderr io.Writer, first, last uint64) *progress {
	start, end := first, last
	if c.hasCycles {
		start = c.start
		end = min(c.end, last)
	}
	return newProgress(stderr, start, end)
}
