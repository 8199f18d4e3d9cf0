package session

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/session/store"
)

// maxExpandSeqs bounds the seq list of one context_expand call.
const maxExpandSeqs = 100

// expandPage is how many records context_expand reads from the store at a
// time; the budget usually ends a page long before that many fit.
const expandPage = 64

type expandArgs struct {
	From   *int64  `json:"from,omitempty"`
	To     *int64  `json:"to,omitempty"`
	Seq    []int64 `json:"seq,omitempty"`
	Line   *int64  `json:"line,omitempty"`
	Offset *int64  `json:"offset,omitempty"`
	Cursor *cursor `json:"cursor,omitempty"`
}

type expandAnswer struct {
	Messages []expandedMessage `json:"messages"`
	Missing  []int64           `json:"missing,omitempty"`
	// Expired are the runs of seqs, first and last, whose messages the
	// store's retention deleted after a compaction folded them.
	Expired   [][2]int64  `json:"expired,omitempty"`
	Truncated bool        `json:"truncated,omitempty"`
	Next      *expandArgs `json:"next,omitempty"`
	Note      string      `json:"note,omitempty"`
}

type expandedMessage struct {
	Seq        int64          `json:"seq"`
	Role       string         `json:"role"`
	Name       string         `json:"name,omitempty"`
	Tool       string         `json:"tool,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Calls      []expandedCall `json:"calls,omitempty"`
	// Text is the message as a model read it: its content, then each tool
	// call as name(arguments), a line each. Part says which bytes of it
	// this is when it did not fit whole.
	Text string    `json:"text"`
	Part *textPart `json:"part,omitempty"`
}

type expandedCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// textPart says which bytes of a message's text an answer holds, and the
// number of the line it starts in.
type textPart struct {
	FromByte int `json:"from_byte"`
	ToByte   int `json:"to_byte"`
	OfBytes  int `json:"of_bytes"`
	FromLine int `json:"from_line"`
}

// expandText is the text context_expand returns for m: what store.SearchText
// shows before the decoded arguments, so that a search's line numbers are
// the expanded text's.
func expandText(m compact.Message) string {
	text, calls := compact.Text(m), msg.ToolCallText(m)
	switch {
	case calls == "":
		return text
	case text == "":
		return calls
	}
	return text + "\n" + calls
}

// expand answers context_expand in at most tokens tokens.
func (s *Session) expand(ctx context.Context, raw []byte, tokens int) (any, error) {
	var args expandArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	want, err := expandSeqs(args)
	if err != nil {
		return nil, err
	}
	start := cursor{}
	if args.Cursor != nil {
		start = *args.Cursor
	} else if args.Line != nil || args.Offset != nil {
		// Around a point of the first message asked for: a cursor there,
		// once its text is known.
		start = cursor{set: true, seq: want.first()}
	}
	at := func(r store.Record, text string) int {
		switch {
		case !start.set || r.Seq != start.seq:
			return 0
		case args.Cursor != nil:
			return start.offset
		}
		return startAround(text, args.Line, args.Offset)
	}
	next := args
	next.Cursor, next.Line, next.Offset = nil, nil, nil
	if want.list != nil {
		next.Seq = s.echoSeqs(tokens, want.list)
	}
	b := s.newBudget(tokens, next)
	ans := expandAnswer{Messages: []expandedMessage{}}
	names := s.newCalls()
	s.mu.Lock()
	last := s.seq // records up to it exist unless they expired
	s.mu.Unlock()
	for _, run := range want.runs(start.seq) {
		recs, err := s.readRun(ctx, run)
		if err != nil {
			return nil, err
		}
		got := map[int64]bool{}
		for _, r := range recs {
			got[r.Seq] = true
			names.learn(r.Message)
			done, err := s.expandOne(ctx, b, names, &ans, r, at)
			if err != nil {
				return nil, err
			}
			if !done {
				ans.Truncated = true
				next.Cursor = ans.resume(r.Seq)
				ans.Note = fmt.Sprintf("answer cut to fit %d tokens; call %s with next to read on", s.toolBudget, ToolExpand)
				if want.list != nil {
					rest := want.list[sort.Search(len(want.list), func(i int) bool { return want.list[i] >= r.Seq }):]
					next.Seq = s.echoSeqs(tokens, rest)
					if len(next.Seq) < len(rest) {
						ans.Note += fmt.Sprintf("; next holds %d of the %d seqs left to read, up to seq %d: ask for those after it next",
							len(next.Seq), len(rest), next.Seq[len(next.Seq)-1])
					}
				}
				ans.Next = &next
				return ans, nil
			}
		}
		for q := run.from; q <= run.to && len(ans.Missing) < maxExpandSeqs; q++ {
			switch {
			case got[q]:
			case q <= last:
				ans.expired(q)
			case run.listed:
				ans.Missing = append(ans.Missing, q)
			}
		}
		if len(recs) == 0 && !run.listed && run.from > last {
			break // a range past the end of the log
		}
	}
	switch {
	case len(ans.Expired) > 0:
		ans.Note = "the messages with the seqs in expired were deleted by the store's retention policy after a compaction folded them: the summary is all that is left of them"
		if len(ans.Missing) > 0 {
			ans.Note += "; the archive holds no message with the seqs in missing"
		}
	case len(ans.Messages) == 0 && len(ans.Missing) == 0:
		ans.Note = "no archived message has those seqs"
	case len(ans.Missing) > 0:
		ans.Note = "the archive holds no message with the seqs in missing"
	}
	return ans, nil
}

// expired adds seq to the answer's expired runs.
func (a *expandAnswer) expired(seq int64) {
	if n := len(a.Expired); n > 0 && a.Expired[n-1][1] == seq-1 {
		a.Expired[n-1][1] = seq
		return
	}
	a.Expired = append(a.Expired, [2]int64{seq, seq})
}

// echoSeqs returns the longest start of seqs that next may repeat in an
// answer of tokens tokens; at least one.
func (s *Session) echoSeqs(tokens int, seqs []int64) []int64 {
	n := sort.Search(len(seqs), func(i int) bool {
		return i > 0 && !s.echoes(tokens, expandArgs{Seq: seqs[:i+1], Cursor: &cursor{set: true, seq: maxSeq, offset: maxSeq}})
	})
	return seqs[:max(n, 1):max(n, 1)]
}

// aroundLead is how far before the point a call names (a search hit's line
// or offset) an expanded message starts: at the line before, but never
// more than this many bytes before, so that the point is in view however
// long that line (it is the width of a snippet's context lines, twice).
const aroundLead = 2 * contextWidth

// startAround returns where text is shown from for a call that names a
// line (counting from 1; past the end, the last) or a byte offset (past
// the end, the end): the start of the line before, or aroundLead bytes
// before the point when that line is long; at a rune boundary.
func startAround(text string, line, offset *int64) int {
	at := 0
	switch {
	case line != nil:
		at = lineOffset(text, *line)
	case offset != nil:
		at = cutRune(text, int(min(*offset, int64(len(text)))))
	}
	from := lineStart(text, at)
	if from > 0 {
		from = lineStart(text, from-1)
	}
	if at-from > aroundLead {
		from = at - aroundLead
	}
	return cutRune(text, from)
}

// lineOffset returns where line n of text starts (1 is the first), or
// where its last line starts when it has fewer.
func lineOffset(text string, n int64) int {
	at := 0
	for ; n > 1; n-- {
		i := strings.IndexByte(text[at:], '\n')
		if i < 0 {
			break
		}
		at += i + 1
	}
	return at
}

// resume is the cursor that continues an answer cut at record seq: inside
// it when part of its text was given, at its start otherwise.
func (a *expandAnswer) resume(seq int64) *cursor {
	if n := len(a.Messages); n > 0 && a.Messages[n-1].Seq == seq && a.Messages[n-1].Part != nil {
		p := a.Messages[n-1].Part
		return &cursor{set: true, seq: seq, offset: p.ToByte}
	}
	return &cursor{set: true, seq: seq}
}

// seqRun is a run of consecutive seqs to read; listed runs come from a seq
// list, whose every absent seq is reported missing.
type seqRun struct {
	from, to int64
	listed   bool
}

// wanted is what a call asks for: a range, or a sorted list.
type wanted struct {
	from, to int64
	list     []int64
}

// first is the lowest seq asked for.
func (w wanted) first() int64 {
	if w.list != nil {
		return w.list[0]
	}
	return w.from
}

// runs returns the runs to read, starting at seq start (a cursor) when it
// is set: a range is read a page at a time, so it yields its pages lazily
// up to the end; a list, as runs of consecutive seqs.
func (w wanted) runs(start int64) []seqRun {
	if w.list == nil {
		from := max(w.from, start)
		var out []seqRun
		for p := from; p <= w.to && len(out) < maxRangePages; p += expandPage {
			out = append(out, seqRun{from: p, to: min(w.to, p+expandPage-1)})
		}
		return out
	}
	var out []seqRun
	for _, q := range w.list {
		if q < start {
			continue
		}
		if n := len(out); n > 0 && out[n-1].to == q-1 {
			out[n-1].to = q
			continue
		}
		out = append(out, seqRun{from: q, to: q, listed: true})
	}
	return out
}

// maxRangePages bounds the pages one answer reads of a range: the budget
// ends the answer long before, unless the range lies past the log's end.
const maxRangePages = 64

// expandSeqs checks what the call asks for.
func expandSeqs(a expandArgs) (wanted, error) {
	if err := checkPoint(a); err != nil {
		return wanted{}, err
	}
	hasRange := a.From != nil || a.To != nil
	switch {
	case hasRange && a.Seq != nil:
		return wanted{}, badArgs(`give either "from" and "to", or "seq", not both`)
	case !hasRange && a.Seq == nil:
		return wanted{}, badArgs(`give "from" and "to" (a range of seqs), or "seq" (a list of seqs)`)
	case a.Seq != nil:
		if len(a.Seq) == 0 || len(a.Seq) > maxExpandSeqs {
			return wanted{}, badArgs(`"seq" must list between 1 and %d seqs; got %d`, maxExpandSeqs, len(a.Seq))
		}
		list := slices.Clone(a.Seq)
		for _, q := range list {
			if err := checkSeq("seq", q); err != nil {
				return wanted{}, err
			}
		}
		slices.Sort(list)
		return wanted{list: slices.Compact(list)}, nil
	case a.From == nil:
		return wanted{}, badArgs(`"to" needs "from"`)
	}
	from, to := *a.From, *a.From
	if a.To != nil {
		to = *a.To
	}
	if err := checkSeq("from", from); err != nil {
		return wanted{}, err
	}
	if err := checkSeq("to", to); err != nil {
		return wanted{}, err
	}
	if to < from {
		return wanted{}, badArgs(`the range is inverted: "from" %d is after "to" %d`, from, to)
	}
	return wanted{from: from, to: to}, nil
}

// checkSeq reports a seq the tool cannot take, given as field.
func checkSeq(field string, q int64) error {
	switch {
	case q < 1:
		return badArgs(`%q holds %d; seqs start at 1`, field, q)
	case q > maxSeq:
		return badArgs(`%q holds %d; seqs go up to %d`, field, q, int64(maxSeq))
	}
	return nil
}

// checkPoint reports a line or offset the tool cannot take.
func checkPoint(a expandArgs) error {
	switch {
	case a.Line != nil && a.Offset != nil:
		return badArgs(`give "line" or "offset", not both`)
	case a.Line != nil && (*a.Line < 1 || *a.Line > maxSeq):
		return badArgs(`"line" is %d; lines count from 1 up to %d`, *a.Line, int64(maxSeq))
	case a.Offset != nil && (*a.Offset < 0 || *a.Offset > maxSeq):
		return badArgs(`"offset" is %d; offsets go from 0 up to %d`, *a.Offset, int64(maxSeq))
	}
	return nil
}

// readRun reads one run of records.
func (s *Session) readRun(ctx context.Context, run seqRun) ([]store.Record, error) {
	return s.store.Read(ctx, s.id, run.from, run.to)
}

// expandOne adds r's text from the offset at gives to the answer as far as
// the budget allows, and reports whether all of it went in. A record that
// does not fit is cut only when it is the first of the answer; otherwise
// it waits for the next call, whole.
func (s *Session) expandOne(ctx context.Context, b *budget, names *calls, ans *expandAnswer, r store.Record,
	at func(r store.Record, text string) int) (bool, error) {
	m := r.Message
	tool, err := names.tool(ctx, r)
	if err != nil {
		return false, err
	}
	e := expandedMessage{Seq: r.Seq, Role: m.Role, Name: m.Name, Tool: tool, ToolCallID: m.ToolCallID}
	for _, tc := range m.ToolCalls {
		e.Calls = append(e.Calls, expandedCall{ID: tc.ID, Name: tc.Function.Name})
	}
	text := expandText(m)
	offset := cutRune(text, min(max(at(r, text), 0), len(text)))
	fromLine := strings.Count(text[:offset], "\n") + 1
	part := func(t string) any {
		c := e
		c.Text = t
		if offset > 0 || offset+len(t) < len(text) {
			c.Part = &textPart{FromByte: offset, ToByte: offset + len(t), OfBytes: len(text), FromLine: fromLine}
		}
		return c
	}
	whole := part(text[offset:]).(expandedMessage)
	if b.take(whole) {
		ans.Messages = append(ans.Messages, whole)
		return true, nil
	}
	if len(ans.Messages) > 0 {
		return false, nil
	}
	n := b.fit(text[offset:], part)
	if n == 0 && offset < len(text) {
		return false, nil // the budget cannot hold even the envelope
	}
	cut := part(text[offset : offset+n]).(expandedMessage)
	b.take(cut)
	ans.Messages = append(ans.Messages, cut)
	return false, nil
}
