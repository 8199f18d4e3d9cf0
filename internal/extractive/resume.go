package extractive

import (
	"encoding/binary"
	"hash/maphash"
	"maps"
	"slices"
	"sync"
)

// This file lets a scan resume where the last one stopped: a history that
// grew is summarised again from its first turns, and the walk over the
// turns it shares with the last scan (the costly part: decoding arguments,
// reading output for errors and paths, redacting) is not done again.

// ScanMemo remembers the state of the last scan after its turns, keyed by a
// hash of the turns and what shaped the walk (the focus, facts only or
// not), so a scan of turns that begin with those resumes there. It holds
// one state: a summary and a facts measure use a memo each. It is safe
// for concurrent use; a nil *ScanMemo remembers nothing.
type ScanMemo struct {
	seed maphash.Seed

	mu   sync.Mutex
	last *scanState
}

// NewScanMemo returns an empty memo.
func NewScanMemo() *ScanMemo { return &ScanMemo{seed: maphash.MakeSeed()} }

// scanState is a scan stopped after n turns whose hash is key.
type scanState struct {
	key   uint64
	n     int
	d     *digest
	calls []*callRecord
	open  map[string]int
}

// turnHasher hashes turns one at a time, so the hash of a prefix is known
// on the way to the hash of the whole.
type turnHasher struct {
	h maphash.Hash
}

func (t *turnHasher) add(m Message) {
	field := func(tag byte, s string) {
		var hdr [9]byte
		hdr[0] = tag
		binary.LittleEndian.PutUint64(hdr[1:], uint64(len(s)))
		_, _ = t.h.Write(hdr[:])
		_, _ = t.h.WriteString(s)
	}
	field('r', m.Role)
	field('n', m.Name)
	field('d', m.ToolCallID)
	field('c', m.Content)
	for _, p := range m.MultiContent {
		field('p', string(p.Type))
		field('t', p.Text)
		if p.ImageURL != nil {
			field('u', p.ImageURL.URL)
		}
	}
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
	field('/', "") // the end of a message
}

// start begins a hash of turns scanned by d (its focus and mode are part
// of the key).
func (sm *ScanMemo) start(d *digest) *turnHasher {
	t := &turnHasher{}
	t.h.SetSeed(sm.seed)
	mode := "full"
	if d.factsOnly {
		mode = "facts"
	}
	_, _ = t.h.WriteString(mode + "\x00" + d.focus + "\x00")
	return t
}

// resume returns a copy of the remembered state when turns begin with the
// turns it was taken after, with the hasher advanced past them; nil when
// they do not.
func (sm *ScanMemo) resume(d *digest, turns []Message, t *turnHasher) *scanState {
	if sm == nil {
		return nil
	}
	sm.mu.Lock()
	last := sm.last
	sm.mu.Unlock()
	if last == nil || last.n > len(turns) || last.d.factsOnly != d.factsOnly || last.d.focus != d.focus {
		return nil
	}
	probe := *t // maphash.Hash copies with its state
	for _, m := range turns[:last.n] {
		probe.add(m)
	}
	if probe.h.Sum64() != last.key {
		return nil
	}
	*t = probe
	return last.copy()
}

// keep remembers st, a copy of it.
func (sm *ScanMemo) keep(st *scanState) {
	if sm == nil {
		return
	}
	c := st.copy()
	sm.mu.Lock()
	sm.last = c
	sm.mu.Unlock()
}

// copy returns a deep copy of st.
func (st *scanState) copy() *scanState {
	out := &scanState{key: st.key, n: st.n, d: st.d.clone(), open: maps.Clone(st.open)}
	out.calls = make([]*callRecord, len(st.calls))
	for i, c := range st.calls {
		cc := *c
		out.calls[i] = &cc
	}
	return out
}

// clone returns a deep copy of d: nothing a scan changes is shared.
func (d *digest) clone() *digest {
	c := *d
	c.asks = d.asks.clone()
	for i := range d.files {
		c.files[i] = d.files[i].clone()
	}
	c.commands = d.commands.clone()
	c.calls = d.calls.clone()
	c.errors = d.errors.clone()
	c.decisions = d.decisions.clone()
	c.pending = d.pending.clone()
	c.facts = d.facts.clone()
	return &c
}

func (e entries) clone() entries {
	return entries{list: slices.Clone(e.list), at: maps.Clone(e.at)}
}

func (f facts) clone() facts {
	c := f
	c.ids = idList{list: slices.Clone(f.ids.list), at: maps.Clone(f.ids.at)}
	for i := range c.ids.list {
		c.ids.list[i].tools = slices.Clone(c.ids.list[i].tools)
	}
	c.errFrom = maps.Clone(f.errFrom)
	c.cleanAt = maps.Clone(f.cleanAt)
	return c
}
