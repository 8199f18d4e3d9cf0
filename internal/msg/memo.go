package msg

import (
	"encoding/binary"
	"hash/maphash"
	"sync"
)

// TextMemo remembers a text derived from a message (and a string the
// derivation also reads), keyed by a hash of every field a rendering of the
// message reads, so work done once per message is not done again when a
// grown history comes back. It is bounded in bytes: it keeps two
// generations and starts a new one when the current holds more than its
// bound. The hash is 64 bits with a per-memo random seed, as the token
// counter's memo is: two different messages share a text only by a
// collision of that hash. It is safe for concurrent use; a nil *TextMemo
// remembers nothing.
type TextMemo struct {
	seed     maphash.Seed
	genBytes int

	mu       sync.Mutex
	cur, old map[uint64]string
	curBytes int
}

// NewTextMemo returns a memo whose generations hold genBytes of text each.
func NewTextMemo(genBytes int) *TextMemo {
	return &TextMemo{seed: maphash.MakeSeed(), genBytes: genBytes}
}

// Get returns the text of m and extra, calling derive to make it when the
// memo does not hold it. derive must depend on nothing but m's fields and
// extra.
func (tm *TextMemo) Get(m Message, extra string, derive func() string) string {
	if tm == nil {
		return derive()
	}
	return tm.get(tm.hash(m, extra), derive)
}

// GetString returns the text derived from s, calling derive to make it
// when the memo does not hold it. derive must depend on nothing but s.
func (tm *TextMemo) GetString(s string, derive func() string) string {
	if tm == nil || s == "" {
		return derive()
	}
	var h maphash.Hash
	h.SetSeed(tm.seed)
	_, _ = h.WriteString(s)
	return tm.get(h.Sum64()^stringKeyMark, derive)
}

// stringKeyMark sets GetString's keys apart from Get's.
const stringKeyMark = 0x9e3779b97f4a7c15

func (tm *TextMemo) get(key uint64, derive func() string) string {
	tm.mu.Lock()
	s, ok := tm.cur[key]
	if !ok {
		if s, ok = tm.old[key]; ok {
			tm.putLocked(key, s)
		}
	}
	tm.mu.Unlock()
	if ok {
		return s
	}
	s = derive()
	tm.mu.Lock()
	tm.putLocked(key, s)
	tm.mu.Unlock()
	return s
}

func (tm *TextMemo) putLocked(key uint64, s string) {
	if tm.curBytes+len(s) > tm.genBytes && len(tm.cur) > 0 {
		tm.old, tm.cur, tm.curBytes = tm.cur, nil, 0
	}
	if tm.cur == nil {
		tm.cur = make(map[uint64]string)
	}
	tm.cur[key] = s
	tm.curBytes += len(s)
}

// hash is the key of m and extra: every field a rendering reads, each
// written with a tag and its length, so moving text between fields changes
// the key.
func (tm *TextMemo) hash(m Message, extra string) uint64 {
	var h maphash.Hash
	h.SetSeed(tm.seed)
	field := func(tag byte, s string) {
		var hdr [9]byte
		hdr[0] = tag
		binary.LittleEndian.PutUint64(hdr[1:], uint64(len(s)))
		_, _ = h.Write(hdr[:])
		_, _ = h.WriteString(s)
	}
	field('e', extra)
	field('r', m.Role)
	field('n', m.Name)
	field('d', m.ToolCallID)
	field('c', Text(m))
	field('x', m.Refusal)
	field('z', m.ReasoningContent)
	for _, c := range m.ToolCalls {
		field('I', c.ID)
		field('T', c.Function.Name)
		field('a', c.Function.Arguments)
	}
	if fc := m.FunctionCall; fc != nil {
		field('F', fc.Name)
		field('A', fc.Arguments)
	}
	return h.Sum64()
}
