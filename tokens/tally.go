package tokens

import "sync"

// Tally is a running token count of an append-only history, so a host that
// appends messages between requests pays for the new messages only, however
// long the history is. Its Total is CountMessages of the messages it holds.
//
// A Tally sees only what it is given: a host that edits or removes an
// earlier message, or replaces the history (as compaction does), must call
// Reset with the new history. It is safe for concurrent use; concurrent
// calls take effect in some order, each as a whole.
type Tally struct {
	tc Counter

	mu    sync.Mutex
	sum   int // tokens of the messages, without reply priming
	count int
}

// NewTally returns an empty tally that counts with tc.
func NewTally(tc Counter) *Tally {
	return &Tally{tc: tc}
}

// Add counts msgs, appended to the history, and returns the new Total.
func (t *Tally) Add(msgs ...Message) int {
	sum := t.countAll(msgs)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sum += sum
	t.count += len(msgs)
	return t.totalLocked()
}

// Reset recounts after the history was replaced by msgs, and returns the new
// Total.
func (t *Tally) Reset(msgs []Message) int {
	sum := t.countAll(msgs)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sum, t.count = sum, len(msgs)
	return t.totalLocked()
}

// Total returns the tokens the history takes as a chat request, as
// CountMessages counts it: 0 for an empty history.
func (t *Tally) Total() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.totalLocked()
}

// Len returns the number of messages in the history.
func (t *Tally) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.count
}

// countAll counts msgs outside the lock, so a long message being tokenised
// does not block readers.
func (t *Tally) countAll(msgs []Message) int {
	n := 0
	for i := range msgs {
		n += t.tc.CountMessage(msgs[i])
	}
	return n
}

func (t *Tally) totalLocked() int {
	if t.count == 0 {
		return 0
	}
	return t.sum + ReplyPrimingTokens
}
