package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Progress timing.
const (
	// progressQuiet is how long work runs before a progress line appears:
	// work that finishes within it shows none.
	progressQuiet = time.Second

	// progressTick is how often the line is redrawn on a terminal.
	progressTick = 200 * time.Millisecond

	// progressEvery is how often a plain progress line is written when
	// standard error is not a terminal (a log, a CI job).
	progressEvery = 5 * time.Second

	// progressBarWidth is the bar's width in cells.
	progressBarWidth = 24

	// progressLabelMax keeps a terminal line within 80 columns.
	progressLabelMax = 40
)

// progressConfig says how progress is shown; tests shorten the timings.
type progressConfig struct {
	tty          bool
	quiet, every time.Duration
	tick         time.Duration
}

// defaultProgress shows progress the usual way on w.
func defaultProgress(w io.Writer) progressConfig {
	return progressConfig{tty: isTerminal(w), quiet: progressQuiet, every: progressEvery, tick: progressTick}
}

// isTerminal reports whether w is a terminal a line can be redrawn on.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progress draws a progress line on w for work that outlasts cfg.quiet: a
// bar redrawn in place on a terminal, otherwise a plain line every
// cfg.every. Everything else the command writes to w while it runs goes
// through println, so the two never tangle.
type progress struct {
	w     io.Writer
	cfg   progressConfig
	total int // steps (files, or replays); 0 for one long compaction
	start time.Time

	mu       sync.Mutex
	done     int
	label    string
	drawn    bool // a terminal line is showing
	lastLine time.Time

	stop chan struct{}
	wg   sync.WaitGroup
}

// startProgress starts drawing; finish stops.
func startProgress(w io.Writer, cfg progressConfig, total int, label string) *progress {
	p := &progress{w: w, cfg: cfg, total: total, start: time.Now(), label: label, stop: make(chan struct{})}
	p.wg.Add(1)
	go p.loop()
	return p
}

func (p *progress) loop() {
	defer p.wg.Done()
	tick := p.cfg.tick
	if tick <= 0 {
		tick = progressTick
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case now := <-t.C:
			p.mu.Lock()
			p.drawLocked(now)
			p.mu.Unlock()
		}
	}
}

// set records progress: steps done, and what is being worked on.
func (p *progress) set(done int, label string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.label = done, label
}

// println writes a line to w, clearing the progress line first.
func (p *progress) println(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	say(p.w, format+"\n", args...)
}

// finish stops drawing and clears the line.
func (p *progress) finish() {
	close(p.stop)
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
}

func (p *progress) clearLocked() {
	if p.drawn {
		say(p.w, "%s", "\r\033[K")
		p.drawn = false
	}
}

func (p *progress) drawLocked(now time.Time) {
	elapsed := now.Sub(p.start)
	if elapsed < p.cfg.quiet {
		return
	}
	secs := fmt.Sprintf("%ds", int(elapsed.Seconds()))
	if !p.cfg.tty {
		if !p.lastLine.IsZero() && now.Sub(p.lastLine) < p.cfg.every {
			return
		}
		p.lastLine = now
		if p.total > 0 {
			say(p.w, "compact: %d/%d done, %s: %s\n", p.done, p.total, secs, p.label)
		} else {
			say(p.w, "compact: %s, %s\n", p.label, secs)
		}
		return
	}
	label := p.label
	if len(label) > progressLabelMax { // a wrapped line cannot be redrawn in place
		label = "..." + label[len(label)-progressLabelMax+3:]
	}
	line := label + ", " + secs
	if p.total > 0 {
		filled := progressBarWidth * p.done / p.total
		bar := strings.Repeat("=", filled) + strings.Repeat(" ", progressBarWidth-filled)
		line = fmt.Sprintf("[%s] %d/%d %s %s", bar, p.done, p.total, secs, label)
	}
	say(p.w, "%s", "\r\033[K"+line)
	p.drawn = true
}
