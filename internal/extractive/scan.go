package extractive

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/memo"
	"github.com/contextkit/compact/internal/msg"
)

// This file walks the turns of a Request and collects what the
// extractive summary keeps, each list entry with the position it was last
// seen at and a rank saying how long it survives capping and trimming.

// Ranks order what capping and trimming keep: a higher rank survives
// longer, and within a rank the newer entry does.
const (
	rankMention = 0 // a path named in prose or output, not touched by a tool
	rankWeak    = 1 // an intention ("I'll ..."), not a reasoned decision
	rankNormal  = 2
	rankPending = 3 // a tool call still running
	rankFocus   = 4 // added to any entry from a turn that mentions the focus
)

// entry is one line a summary list may keep. Every entry the scan adds
// takes a fresh seq, so lines of one message keep their order.
type entry struct {
	raw  string // as extracted: not yet redacted or shortened
	seq  int    // when it was last seen; higher is newer
	rank int
}

// entries is a list that drops duplicates: adding a known raw text again
// moves it to the newer position and keeps the higher rank.
type entries struct {
	list []entry
	at   map[string]int
}

func (e *entries) add(raw string, seq, rank int) {
	if raw == "" {
		return
	}
	if e.at == nil {
		e.at = map[string]int{}
	}
	if i, ok := e.at[raw]; ok {
		e.list[i].seq = max(e.list[i].seq, seq)
		e.list[i].rank = max(e.list[i].rank, rank)
		return
	}
	e.at[raw] = len(e.list)
	e.list = append(e.list, entry{raw, seq, rank})
}

// remove drops raw and returns what it held. The slot stays, emptied, so
// removal costs no shifting; keep skips empty slots.
func (e *entries) remove(raw string) (entry, bool) {
	i, ok := e.at[raw]
	if !ok {
		return entry{}, false
	}
	got := e.list[i]
	e.list[i] = entry{}
	delete(e.at, raw)
	return got, true
}

// keep returns at most n entries, oldest first: the highest ranks, and the
// newest within a rank. n < 0 keeps none.
func keep(list []entry, n int) []entry {
	if n < 0 {
		return nil
	}
	out := make([]entry, 0, len(list))
	for _, e := range list {
		if e.raw != "" {
			out = append(out, e)
		}
	}
	if len(out) > n {
		slices.SortStableFunc(out, func(a, b entry) int {
			if c := cmp.Compare(b.rank, a.rank); c != 0 {
				return c
			}
			return cmp.Compare(b.seq, a.seq)
		})
		out = out[:n]
	}
	slices.SortStableFunc(out, func(a, b entry) int { return cmp.Compare(a.seq, b.seq) })
	return out
}

// File groups, from most to least telling: a file modified is listed there
// only, a file read and not modified under read.
const (
	fileModified = iota
	fileRead
	fileReferenced
	fileGroups
)

// digest is what the scan collected.
type digest struct {
	asks      entries // real user messages; the newest is the current task
	files     [fileGroups]entries
	commands  entries
	calls     entries // tool calls that are neither commands nor file operations
	errors    entries
	decisions entries
	pending   entries
	facts     facts
	state     string // the last visible assistant text
	earlier   string // a previous summary kept verbatim
	seq       int
	focus     string               // lower-cased
	factsOnly bool                 // collect the index's facts alone: no asks, prose, mere mentions or lists of calls
	views     *memo.Table[Message] // remembers the views scanView returns (nil: none)
	written   *written             // remembers the facts' written forms (nil: none)
	turns     int
	roles     [4]int // user, assistant, tool, other: for a summary of last resort
}

func (d *digest) next() int { d.seq++; return d.seq }

// rank adds rankFocus to base when hit says the focus was mentioned.
func (d *digest) rank(base int, hit bool) int {
	if hit {
		return base + rankFocus
	}
	return base
}

// mentions reports whether s mentions the focus topic, in any case.
func (d *digest) mentions(s string) bool {
	return d.focus != "" && containsFold(s, d.focus)
}

// containsFold reports whether s contains lower, a lower-case string, in
// any case. An ASCII lower is searched for without copying s; any other
// falls back to lower-casing s.
func containsFold(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		if lower[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), lower)
		}
	}
	first, upper := lower[0], lower[0]
	if first >= 'a' && first <= 'z' {
		upper -= 'a' - 'A'
	}
	for i := 0; i+len(lower) <= len(s); i++ {
		if (s[i] == first || s[i] == upper) && strings.EqualFold(s[i:i+len(lower)], lower) {
			return true
		}
	}
	return false
}

// callRecord is one tool call waiting for, or paired with, its result.
type callRecord struct {
	id, name, args string
	list           int    // listCommands, listCalls or listNone
	fileFromResult bool   // take the file this call acted on from its result
	group          int    // the file group of that file
	command        string // the command line for a shell call
	label          string // what names its run (see callLabel)
	seq            int
	focus          bool
	answered       bool
	status         string
}

// Where a tool call is listed.
const (
	listNone = iota
	listCommands
	listCalls
)

// ctxCheckEvery is how many turns pass between checks of ctx, so a huge
// history notices cancellation without paying for a check per message.
const ctxCheckEvery = 256

// scanWith walks turns in order, resuming where sm's last scan stopped
// when turns begin with the turns it walked, and leaves sm the state after
// them.
func (d *digest) scanWith(ctx context.Context, turns []Message, sm *ScanMemo) error {
	var calls []*callRecord
	open := map[string]int{}
	start := 0
	var copied []Message // the resumed scan's copies of turns[:start]
	if st := sm.resume(d, turns); st != nil {
		views, written := d.views, d.written
		*d, calls, open, start, copied = *st.d, st.calls, st.open, len(st.turns), st.turns
		d.views, d.written = views, written
	}
	for i := start; i < len(turns); i++ {
		m := turns[i]
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("compact: extractive summary stopped at message %d: %w", i, err)
			}
		}
		if !d.factsOnly {
			// Sizing the facts index (factsTokens) writes nothing out, so
			// it reads the text as it is: redaction changes the size by a
			// few bytes a secret, and was most of the sizing's time.
			m = scanView(m, d.views)
		}
		d.turns++
		switch m.Role {
		case msg.RoleUser:
			d.roles[0]++
			d.scanUser(m)
		case msg.RoleAssistant:
			d.roles[1]++
			text := msg.Text(m)
			if strings.TrimSpace(text) == "" {
				text = m.Refusal
			}
			hit := d.focus != "" && (d.mentions(text) || d.mentions(msg.ToolCallText(m))) // no calls' text to write without a focus
			d.scanProse(text, hit)
			for _, c := range m.ToolCalls {
				calls = d.addCall(calls, open, c.ID, c.Function.Name, c.Function.Arguments, hit)
			}
			if m.FunctionCall != nil {
				calls = d.addCall(calls, open, "", m.FunctionCall.Name, m.FunctionCall.Arguments, hit)
			}
		case msg.RoleTool, "function":
			d.roles[2]++
			d.scanResult(m, calls, open)
		default:
			d.roles[3]++
		}
	}
	sm.keep(turns, copied, d, calls, open)
	if d.factsOnly {
		return nil // the facts index lists no commands, calls or pending calls
	}
	for _, c := range calls {
		if !c.answered {
			d.pending.add(c.name+"("+c.args+")", c.seq, d.rank(rankPending, c.focus))
			continue // not run yet: listed as pending only
		}
		switch c.list {
		case listCommands:
			d.commands.add(withStatus(c.command, c.status), c.seq, d.rank(rankNormal, c.focus))
		case listCalls:
			d.calls.add(withStatus(c.name+"("+c.args+")", c.status), c.seq, d.rank(rankNormal, c.focus))
		}
	}
	return nil
}

func withStatus(s, status string) string {
	if status == "" {
		return s
	}
	return s + " → " + status
}

// scanUser takes a real user message as an ask, with its paths and pasted
// errors. A standalone summary is not an ask; a summary merged in front of a
// user message leaves that message's own text.
func (d *digest) scanUser(m Message) {
	if !msg.IsRealUser(m) {
		return
	}
	_, rest, _ := msg.SplitMerged(m)
	text := strings.TrimSpace(msg.Text(rest))
	if text == "" {
		return
	}
	hit := d.mentions(text)
	if !d.factsOnly {
		d.asks.add(text, d.next(), d.rank(rankNormal, hit))
		textPaths(text, false, func(p string) { d.files[fileReferenced].add(normPath(p), d.next(), d.rank(rankMention, hit)) })
	}
	d.noteErrors(errorLines(text), userRun, hit)
}

// scanProse takes the assistant's visible text: the current state, its
// decisions and the paths it names.
func (d *digest) scanProse(text string, hit bool) {
	if d.factsOnly || strings.TrimSpace(text) == "" {
		return
	}
	d.state = text
	textPaths(text, false, func(p string) { d.files[fileReferenced].add(normPath(p), d.next(), d.rank(rankMention, hit)) })
	d.scanThought(text, hit)
}

// addCall records one tool call and the files its arguments name. A shell
// call is listed under commands; a call that names files is a file
// operation, listed by its files; think and finish calls feed decisions and
// the state; any other call is listed under tool calls.
func (d *digest) addCall(calls []*callRecord, open map[string]int, id, name, args string, hit bool) []*callRecord {
	seq := d.next()
	parsed := decodeArgs(args)
	rec := &callRecord{id: id, name: name, args: args, seq: seq, focus: hit, list: listNone}
	paths := argPaths(parsed)
	group := fileGroupOf(name, parsed)
	for _, p := range paths {
		d.files[group].add(normPath(p), d.next(), d.rank(rankNormal, hit))
	}
	kind := classifyTool(name, parsed)
	switch kind {
	case toolShell:
		rec.list, rec.command = listCommands, commandOf(parsed, args)
		addPath := func(p string, g int) { d.files[g].add(normPath(p), d.next(), d.rank(rankNormal, hit)) }
		if isCodeArg(parsed) {
			commandPaths(rec.command, true, addPath)
			codeWords(rec.command, func(p string) { d.files[fileReferenced].add(p, d.next(), d.rank(rankNormal, hit)) })
		} else {
			segs := splitShell(rec.command) // read once for its paths and its words
			shellPaths(segs, addPath)
			shellWords(segs, func(p string, g int) { d.files[g].add(p, d.next(), d.rank(rankNormal, hit)) })
		}
	case toolThink:
		d.scanThought(firstString(parsed, "thought", "thoughts", "reasoning"), hit)
	case toolFinish:
		if t := firstString(parsed, "message", "final_answer", "answer", "result", "summary"); t != "" {
			d.state = t
		}
	default:
		if len(paths) == 0 && group != fileReferenced {
			// An editor acting on the file it has open (SWE-agent's edit,
			// insert) names the file in its output instead.
			rec.fileFromResult, rec.group = true, group
		}
		if len(paths) == 0 && !d.factsOnly && !hasWord(toolWords(name), isEditorWord) {
			rec.list = listCalls
		}
	}
	rec.label = callLabel(name, rec.command, parsed)
	d.noteCall(name, parsed, kind, rec.command, seq, hit)
	if id != "" {
		open[id] = len(calls)
	}
	return append(calls, rec)
}

// scanThought takes the decisions stated in the assistant's prose or in a
// think tool's thought.
func (d *digest) scanThought(t string, hit bool) {
	if t == "" || d.factsOnly {
		return
	}
	decisions(t, func(s string, strength int) {
		base := rankNormal
		if strength < 2 {
			base = rankWeak
		}
		d.decisions.add(s, d.next(), d.rank(base, hit))
	})
}

// scanResult pairs a tool result with its call (the nearest earlier
// unanswered call of that id, or the latest unanswered one when it has no
// id) and takes its error lines, its located paths and the call's status.
func (d *digest) scanResult(m Message, calls []*callRecord, open map[string]int) {
	text := msg.Text(m)
	var rec *callRecord
	if i, ok := open[m.ToolCallID]; ok && m.ToolCallID != "" {
		rec = calls[i]
		delete(open, m.ToolCallID)
	} else if m.ToolCallID == "" {
		for i := len(calls) - 1; i >= 0 && i >= len(calls)-16; i-- {
			if !calls[i].answered {
				rec = calls[i]
				break
			}
		}
	}
	hit := d.mentions(text) || rec != nil && rec.focus
	errs := errorLines(text)
	d.noteErrors(errs, runLabel(rec), hit)
	if !d.factsOnly {
		textPaths(text, true, func(p string) { d.files[fileReferenced].add(normPath(p), d.next(), d.rank(rankMention, hit)) })
	}
	if rec != nil && rec.fileFromResult {
		first, _, _ := strings.Cut(text, "\n")
		found := false
		textPaths(first, false, func(p string) {
			if !found {
				found = true
				d.files[rec.group].add(normPath(p), rec.seq, d.rank(rankNormal, rec.focus))
				rec.list = listNone
			}
		})
	}
	if rec != nil {
		rec.answered = true
		rec.focus = rec.focus || hit
		rec.status = commandStatus(text, errs)
		if isClean(errs, rec.status) {
			d.noteClean(runLabel(rec), d.next())
		}
	}
}

// normPath is a path as the index lists it: written whole, as given
// (./App.css stays ./App.css, so a reader finds it verbatim). ./x.go and
// x.go are made one file when the index is drawn up (see dotPaths).
func normPath(p string) string { return strings.TrimSpace(p) }

// firstString returns the first non-empty string argument among keys.
func firstString(args map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := args[k].(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// argPaths returns the paths under path-like keys of a call's arguments, in
// key order so the result does not depend on map iteration.
func argPaths(args map[string]any) []string {
	var keys []string
	for k := range args {
		if isPathKey(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		ok := func(v string) bool {
			return isArgPath(v) && (!isLooseKey(k) || strings.Contains(v, "/") || isTextPath(strings.TrimSpace(v)))
		}
		switch v := args[k].(type) {
		case string:
			if ok(v) {
				out = append(out, strings.TrimSpace(v))
			}
		case []any:
			for _, x := range v {
				if s, isStr := x.(string); isStr && ok(s) {
					out = append(out, strings.TrimSpace(s))
				}
			}
		}
	}
	return out
}
