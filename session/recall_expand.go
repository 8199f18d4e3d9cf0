package session

import (
	"context"
	"fmt"
	"slices"

	"github.com/contextkit/compact"
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
	Cursor *cursor `json:"cursor,omitempty"`
}

type expandAnswer struct {
	Messages  []expandedMessage `json:"messages"`
	Missing   []int64           `json:"missing,omitempty"`
	Truncated bool              `json:"truncated,omitempty"`
	Next      *expandArgs       `json:"next,omitempty"`
	Note      string            `json:"note,omitempty"`
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

type textPart struct {
	FromByte int `json:"from_byte"`
	ToByte   int `json:"to_byte"`
	OfBytes  int `json:"of_bytes"`
}

// expandText is the text context_expand returns for m: what SearchText
// shows before the decoded arguments, so that a search's line numbers are
// the expanded text's.
func expandText(m compact.Message) string {
	text, calls := compact.Text(m), compact.ToolCallText(m)
	switch {
	case calls == "":
		return text
	case text == "":
		return calls
	}
	return text + "\n" + calls
}

// expand answers context_expand.
func (s *Session) expand(ctx context.Context, raw []byte) (any, error) {
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
	}
	next := args
	next.Cursor = nil
	b := s.newBudget(next)
	ans := expandAnswer{Messages: []expandedMessage{}}
	names := s.newCalls()
	for _, run := range want.runs(start.seq) {
		recs, err := s.readRun(ctx, run)
		if err != nil {
			return nil, err
		}
		got := map[int64]bool{}
		for _, r := range recs {
			got[r.Seq] = true
			names.learn(r.Message)
			offset := 0
			if r.Seq == start.seq {
				offset = start.offset
			}
			done, err := s.expandOne(ctx, b, names, &ans, r, offset)
			if err != nil {
				return nil, err
			}
			if !done {
				ans.Truncated = true
				next.Cursor = ans.resume(r.Seq)
				ans.Next = &next
				ans.Note = fmt.Sprintf("answer cut to fit %d tokens; call %s with next to read on", s.toolBudget, ToolExpand)
				return ans, nil
			}
		}
		for q := run.from; q <= run.to && len(ans.Missing) < maxExpandSeqs; q++ {
			if !got[q] && run.listed {
				ans.Missing = append(ans.Missing, q)
			}
		}
		if len(recs) == 0 && !run.listed {
			break // a range past the end of the log
		}
	}
	switch {
	case len(ans.Messages) == 0 && len(ans.Missing) == 0:
		ans.Note = "no archived message has those seqs"
	case len(ans.Missing) > 0:
		ans.Note = "the archive holds no message with the seqs in missing"
	}
	return ans, nil
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
			if q < 1 {
				return wanted{}, badArgs(`"seq" holds %d; seqs start at 1`, q)
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
	switch {
	case from < 1:
		return wanted{}, badArgs(`"from" is %d; seqs start at 1`, from)
	case to < from:
		return wanted{}, badArgs(`the range is inverted: "from" %d is after "to" %d`, from, to)
	}
	return wanted{from: from, to: to}, nil
}

// readRun reads one run of records.
func (s *Session) readRun(ctx context.Context, run seqRun) ([]Record, error) {
	return s.store.Read(ctx, s.id, run.from, run.to)
}

// expandOne adds r's text from offset to the answer as far as the budget
// allows, and reports whether all of it went in. A record that does not
// fit is cut only when it is the first of the answer; otherwise it waits
// for the next call, whole.
func (s *Session) expandOne(ctx context.Context, b *budget, names *calls, ans *expandAnswer, r Record, offset int) (bool, error) {
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
	offset = cutRune(text, min(offset, len(text)))
	part := func(t string) any {
		c := e
		c.Text = t
		if offset > 0 || offset+len(t) < len(text) {
			c.Part = &textPart{FromByte: offset, ToByte: offset + len(t), OfBytes: len(text)}
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
