package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// syncBuffer is a buffer the progress goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls until cond holds or a second has passed.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if cond() {
			return
		}
	}
	require.Fail(t, "condition not met within a second")
}

func TestProgressOnATerminalRedrawsABar(t *testing.T) {
	defer goleak.VerifyNone(t)
	var w syncBuffer
	p := startProgress(&w, progressConfig{tty: true, tick: time.Millisecond}, 4, "first.json")
	p.set(2, "third.json")
	waitFor(t, func() bool { return strings.Contains(w.String(), "2/4") })
	p.println("compact: third.json: message 3: unknown role")
	p.finish()
	out := w.String()
	assert.Contains(t, out, "\r\033[K[============            ] 2/4")
	assert.Contains(t, out, "third.json")
	assert.Contains(t, out, "\r\033[Kcompact: third.json: message 3: unknown role\n", "a line clears the bar first")
	assert.True(t, strings.HasSuffix(out, "\r\033[K") || strings.HasSuffix(out, "unknown role\n"), "the bar is cleared at the end: %q", out)
}

func TestProgressOffATerminalWritesPlainLines(t *testing.T) {
	defer goleak.VerifyNone(t)
	var w syncBuffer
	p := startProgress(&w, progressConfig{tick: time.Millisecond, every: time.Hour}, 0, "compacting big.json (4000 messages)")
	waitFor(t, func() bool { return w.String() != "" })
	time.Sleep(10 * time.Millisecond)
	p.finish()
	assert.Regexp(t, `^compact: compacting big.json \(4000 messages\), \d+s\n$`, w.String(), "one line per -every, no control characters")
}

func TestProgressStaysQuietForQuickWork(t *testing.T) {
	defer goleak.VerifyNone(t)
	var w syncBuffer
	p := startProgress(&w, progressConfig{tty: true, tick: time.Millisecond, quiet: time.Hour}, 3, "a.json")
	time.Sleep(10 * time.Millisecond)
	p.finish()
	assert.Empty(t, w.String())
}

func TestIsTerminal(t *testing.T) {
	assert.False(t, isTerminal(new(bytes.Buffer)))
}
