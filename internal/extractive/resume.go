package extractive

import (
	"maps"
	"slices"
	"sync"

	"github.com/contextkit/compact/internal/memo"
)

// This file lets a scan resume where the last one stopped: a history that
// grew is summarised again from its first turns, and the walk over the
// turns it shares with the last scan (the costly part: decoding arguments,
// reading output for errors and paths, redacting) is not done again.

// ScanMemo remembers the state of the last scan after its turns, with a
// deep copy of those turns and what shaped the walk (the focus, facts only
// or not), so a scan of turns that begin with turns equal to those (see
// memo.Equal) resumes there. It holds one state: a summary and a facts
// measure use a memo each. It is safe for concurrent use; a nil *ScanMemo
// remembers nothing.
type ScanMemo struct {
	texts *written // the facts' written forms, for a facts measure (see FactsRoomMemo)

	mu   sync.Mutex
	last *scanState
}

// NewScanMemo returns an empty memo.
func NewScanMemo() *ScanMemo { return &ScanMemo{texts: newWritten()} }

// scanState is a scan stopped after turns, whose deep copies it holds.
type scanState struct {
	turns     []Message
	factsOnly bool
	focus     string
	d         *digest
	calls     []*callRecord
	open      map[string]int
}

// resume returns a copy of the remembered state when turns begin with the
// turns it was taken after; nil when they do not. Checking a turn costs a
// few comparisons when the host passes the strings it passed before.
func (sm *ScanMemo) resume(d *digest, turns []Message) *scanState {
	if sm == nil {
		return nil
	}
	sm.mu.Lock()
	last := sm.last
	sm.mu.Unlock()
	if last == nil || len(last.turns) > len(turns) || last.factsOnly != d.factsOnly || last.focus != d.focus {
		return nil
	}
	for i, m := range last.turns {
		if !memo.Equal(m, turns[i]) {
			return nil
		}
	}
	return last.copy()
}

// keep remembers the scan d stopped after turns, with its calls and the
// calls still open, all copied; copied are the copies of the turns it
// resumed after (equal to the first of turns), which it reuses.
func (sm *ScanMemo) keep(turns, copied []Message, d *digest, calls []*callRecord, open map[string]int) {
	if sm == nil {
		return
	}
	kept := make([]Message, len(turns))
	copy(kept, copied)
	for i := len(copied); i < len(turns); i++ {
		kept[i] = memo.Clone(turns[i])
	}
	st := (&scanState{turns: kept, factsOnly: d.factsOnly, focus: d.focus, d: d, calls: calls, open: open}).copy()
	sm.mu.Lock()
	sm.last = st
	sm.mu.Unlock()
}

// copy returns a deep copy of st.
func (st *scanState) copy() *scanState {
	out := &scanState{turns: st.turns, factsOnly: st.factsOnly, focus: st.focus, d: st.d.clone(), open: maps.Clone(st.open)}
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
