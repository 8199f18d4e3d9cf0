package trigger

import (
	"github.com/contextkit/compact/internal/memo"
	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
)

// Remembered is a counter that remembers what it counted of each message
// seen in its owner's last two rounds (see memo.Table), so a history
// checked or compacted again is counted for the cost of comparing its
// messages with the copies it keeps, not of hashing their text as a
// counter's own memo does. A count is remembered with the state of a
// Counter it came from: once usage reports move the calibration or the
// model's encoding changes, the message is counted again. Any other
// counter is deterministic (the tokens.Counter contract), so its count of
// a message stands. Text is counted by the counter itself.
type Remembered struct {
	tc   tokens.Counter
	seen *memo.Table[counted]
}

// counted is a message's count, and the Counter state it was counted in
// (nil for a counter that is not a Counter).
type counted struct {
	n  int
	st *counterState
}

// rememberedMessages bounds what a Remembered holds: a long conversation's
// history twice over.
const rememberedMessages = 1 << 14

// Remember returns a counter over tc that remembers its message counts.
func Remember(tc tokens.Counter) *Remembered {
	return &Remembered{tc: tc, seen: memo.NewTable[counted](rememberedMessages)}
}

// Round starts a new round: the counts no call since the one before
// counted are forgotten.
func (r *Remembered) Round() { r.seen.Round() }

// Version names the state the counts are in: a Counter's current state
// (its encoding and calibration), nil for any other counter, whose counts
// never change. A value worked out from counts in another state is stale.
func (r *Remembered) Version() any {
	if c, ok := r.tc.(*Counter); ok {
		return c.cur.Load()
	}
	return nil
}

// CountText counts s with the counter.
func (r *Remembered) CountText(s string) int { return r.tc.CountText(s) }

// CountMessage returns the counter's count of m, remembered.
func (r *Remembered) CountMessage(m openai.ChatCompletionMessage) int {
	var st *counterState
	if c, ok := r.tc.(*Counter); ok {
		st = c.cur.Load()
	}
	if v, ok := r.seen.Get(m); ok && v.st == st {
		return v.n
	}
	var n int
	if st != nil {
		n = st.scale(st.base.CountMessage(m))
	} else {
		n = r.tc.CountMessage(m)
	}
	r.seen.Put(m, counted{n: n, st: st})
	return n
}
