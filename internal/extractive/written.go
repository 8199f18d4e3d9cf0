package extractive

import (
	"sync"

	"github.com/contextkit/compact/redact"
)

// written remembers the redacted forms of the facts a summary writes (an
// error line as a list entry, an identifier, a tool's name), which every
// compaction of a conversation writes again: redacting them was most of
// the cost of drawing up an index whose facts were seen before. It keeps
// two generations of writtenEntries each. It is safe for concurrent use;
// a nil *written remembers nothing.
type written struct {
	mu       sync.Mutex
	cur, old map[writtenKey]string
}

// writtenKey is a text and how it is written: as a list entry of n bytes
// at most (itemText), or as it is, redacted (n = -1).
type writtenKey struct {
	raw string
	n   int
}

// writtenEntries bounds a generation: the facts of a long history.
const writtenEntries = 1 << 13

func newWritten() *written { return &written{} }

// item is itemText(raw, n), remembered.
func (w *written) item(raw string, n int) string {
	return w.get(writtenKey{raw, n}, func() string { return itemText(raw, n) })
}

// str is redact.String(s), remembered.
func (w *written) str(s string) string {
	if s == "" {
		return s
	}
	return w.get(writtenKey{s, -1}, func() string { return redact.String(s) })
}

func (w *written) get(k writtenKey, write func() string) string {
	if w == nil {
		return write()
	}
	w.mu.Lock()
	s, ok := w.cur[k]
	if !ok {
		if s, ok = w.old[k]; ok {
			w.putLocked(k, s)
		}
	}
	w.mu.Unlock()
	if ok {
		return s
	}
	s = write()
	w.mu.Lock()
	w.putLocked(k, s)
	w.mu.Unlock()
	return s
}

func (w *written) putLocked(k writtenKey, s string) {
	if len(w.cur) >= writtenEntries {
		w.old, w.cur = w.cur, nil
	}
	if w.cur == nil {
		w.cur = make(map[writtenKey]string)
	}
	w.cur[k] = s
}
