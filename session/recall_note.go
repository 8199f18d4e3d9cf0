package session

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
)

// This file writes the line a summary ends with when recall is on, which
// tells the model where the originals of what it folded are, and keeps
// that line from stacking when the summary is folded again.

// recallLine is the line a summary ends with when the Session offers the
// recall tools: the sequence numbers of the archived messages the summary
// stands for, and the tools that read them back.
func recallLine(from, to int64) string {
	return fmt.Sprintf("[Recall: messages %d to %d of this conversation are archived verbatim. "+
		"Find text in them with %s, read them by seq with %s, list compactions with %s.]",
		from, to, ToolSearch, ToolExpand, ToolDescribe)
}

// recallLinePattern matches a recallLine, capturing its range. Only the
// opening is fixed, so a line from an earlier wording is still recognised.
var recallLinePattern = regexp.MustCompile(`^\[Recall: messages (\d+) to (\d+) of this conversation are archived verbatim\.[^\n]*\]$`)

// recallLineSep separates a summary from its recallLine.
const recallLineSep = "\n\n"

// parseRecallLine finds the recallLine a summary ends with and returns the
// range it names. ok is false when m is no summary or its summary does not
// end with one.
func parseRecallLine(m compact.Message) (from, to int64, ok bool) {
	if !compact.IsSummary(m) {
		return 0, 0, false
	}
	t := summaryPart(m)
	_, from, to, ok = splitRecallLine(t[:summaryEnd(t)])
	return from, to, ok
}

// summaryPart returns the text of m, a summary, that holds the summary:
// its content, or its first part when it is made of parts.
func summaryPart(m compact.Message) string {
	if m.Content == "" && len(m.MultiContent) > 0 {
		return m.MultiContent[0].Text
	}
	return m.Content
}

// withSummaryPart returns a copy of m whose summary's text is t.
func withSummaryPart(m compact.Message, t string) compact.Message {
	c := compact.Clone([]compact.Message{m})[0]
	if c.Content == "" && len(c.MultiContent) > 0 {
		c.MultiContent[0].Text = t
		return c
	}
	c.Content = t
	return c
}

// summaryEnd returns where the summary in text ends: before the marker
// that closes a summary merged in front of a message's own content (which
// no recall line may follow: it is the user's), or at the end of text.
func summaryEnd(text string) int {
	if j := msg.SummaryEndAt(text); j >= 0 {
		return len(strings.TrimRight(text[:j], "\n"))
	}
	return len(text)
}

// splitRecallLine separates a text ending with a recallLine from it.
func splitRecallLine(text string) (rest string, from, to int64, ok bool) {
	i := strings.LastIndexByte(text, '\n')
	m := recallLinePattern.FindStringSubmatch(text[i+1:])
	if m == nil {
		return text, 0, 0, false
	}
	from, err1 := strconv.ParseInt(m[1], 10, 64)
	to, err2 := strconv.ParseInt(m[2], 10, 64)
	if err1 != nil || err2 != nil {
		return text, 0, 0, false
	}
	return strings.TrimRight(text[:max(i, 0)], "\n"), from, to, true
}

// lastText returns the text a message ends with: its content, or the last
// text part of a message made of parts.
func lastText(m compact.Message) string {
	if i := lastTextPart(m); i >= 0 {
		return m.MultiContent[i].Text
	}
	return m.Content
}

// lastTextPart returns the index of m's last text part when m's content is
// in parts, -1 otherwise.
func lastTextPart(m compact.Message) int {
	if m.Content != "" || len(m.MultiContent) == 0 {
		return -1
	}
	for i := len(m.MultiContent) - 1; i >= 0; i-- {
		if m.MultiContent[i].Type == openai.ChatMessagePartTypeText {
			return i
		}
	}
	return -1
}

// withLastText returns a copy of m whose last text is t.
func withLastText(m compact.Message, t string) compact.Message {
	c := compact.Clone([]compact.Message{m})[0]
	if i := lastTextPart(c); i >= 0 {
		c.MultiContent[i].Text = t
		return c
	}
	c.Content, c.MultiContent = t, nil
	return c
}

// stripRecallLine returns m without the recallLine its summary ends with,
// and whether it had one.
func stripRecallLine(m compact.Message) (compact.Message, bool) {
	if !compact.IsSummary(m) {
		return m, false
	}
	t := summaryPart(m)
	e := summaryEnd(t)
	rest, _, _, ok := splitRecallLine(t[:e])
	if !ok {
		return m, false
	}
	return withSummaryPart(m, rest+t[e:]), true
}

// addRecallLine returns m, a summary, its summary ending with line instead
// of any recallLine it had.
func addRecallLine(m compact.Message, line string) compact.Message {
	t := summaryPart(m)
	e := summaryEnd(t)
	rest, _, _, _ := splitRecallLine(t[:e])
	return withSummaryPart(m, strings.TrimRight(rest, "\n")+recallLineSep+line+t[e:])
}

// addLine returns m ending with line instead of any recallLine it had.
func addLine(m compact.Message, line string) compact.Message {
	rest, _, _, _ := splitRecallLine(lastText(m))
	return withLastText(m, strings.TrimRight(rest, "\n")+recallLineSep+line)
}

// stripSystemLine returns m, a system prompt, without the recallLine it
// ends with (a native compaction put it there), and whether it had one.
func stripSystemLine(m compact.Message) (compact.Message, bool) {
	rest, _, _, ok := splitRecallLine(lastText(m))
	if !ok {
		return m, false
	}
	return withLastText(m, rest), true
}

// compactFunc is what a compaction runs on the live history.
type compactFunc func(context.Context, []compact.Message) (*compact.Result, error)

// keptLine is a summary of the live history as it was, with its recall
// line, and as the engine saw it, without.
type keptLine struct{ stripped, original compact.Message }

// stripRecallLines returns a copy of live in which no summary, nor the
// system prompt, ends with a recall line (a summarizer would copy it into
// its summary, and the lines would stack), and the messages it changed.
func stripRecallLines(live []compact.Message) ([]compact.Message, []keptLine) {
	in := make([]compact.Message, len(live))
	var lines []keptLine
	for i, m := range live {
		in[i] = m
		sm, ok := stripRecallLine(m)
		if !ok && i == 0 && m.Role == compact.RoleSystem {
			sm, ok = stripSystemLine(m)
		}
		if ok {
			in[i] = sm
			lines = append(lines, keptLine{sm, m})
		}
	}
	return in, lines
}

// restoreRecallLines gives every summary of msgs kept from the input, all
// but the one at fresh, its recall line back, and reports which it
// restored.
func restoreRecallLines(msgs []compact.Message, fresh int, lines []keptLine) []bool {
	restored := make([]bool, len(msgs))
	for i, m := range msgs {
		if i == fresh || !compact.IsSummary(m) {
			// The new summary, even when its text is an old one's.
			continue
		}
		for _, k := range lines {
			if sameMessage(m, k.stripped) {
				msgs[i], restored[i] = k.original, true
				break
			}
		}
	}
	return restored
}

// reportedSummary returns res.SummaryIndex when it names a summary, -1
// otherwise.
func reportedSummary(res *compact.Result) int {
	if i := res.SummaryIndex; i >= 0 && i < len(res.Messages) && compact.IsSummary(res.Messages[i]) {
		return i
	}
	return -1
}

// newSummaryIndex returns the index of the summary res wrote: the one it
// reports, or else the last summary that is not one kept from the input;
// -1 when there is none (pruning was enough).
func newSummaryIndex(res *compact.Result, restored []bool) int {
	if i := reportedSummary(res); i >= 0 {
		return i
	}
	if res.Summarizer == "" {
		return -1
	}
	for i := len(res.Messages) - 1; i >= 0; i-- {
		if compact.IsSummary(res.Messages[i]) && !restored[i] {
			return i
		}
	}
	return -1
}

// foldedRange returns the sequence numbers of the first and last archived
// messages the new summary stands for. The engine reports the folded range
// as indexes into live; the messages of live that are verbatim copies of
// the log give those indexes their seqs. A folded message that is none (the
// previous summary, a message carried or pruned by the compaction before)
// lies in the range that compaction's summaries stood for, when prev knows
// it. Where a bound cannot be placed exactly, it is widened (to the first
// message, or to the message before the next one placed), so the range
// always holds what was folded.
func (s *Session) foldedRange(ctx context.Context, live []compact.Message, through int64, res *compact.Result,
	prev func() (seqRange, bool)) seqRange {
	a, b := res.SummarizedFrom, res.SummarizedTo
	whole := seqRange{From: 1, To: through}
	if a < 0 || b < a || b >= len(live) {
		return whole
	}
	seqs, err := s.alignSeqs(ctx, live, through)
	if err != nil {
		s.log.Warn("placing the folded range in the log failed; naming the whole log", errAttr(err))
		return whole
	}
	to := through
	for k := b; k < len(live); k++ {
		if seqs[k] > 0 {
			to = seqs[k]
			if k > b {
				to--
			}
			break
		}
	}
	from := int64(1)
	if seqs[a] > 0 {
		from = seqs[a]
		if compact.IsSummary(live[a]) {
			// A provider's summary is logged with its response, and stands
			// for what came before it.
			if r, ok := prev(); ok {
				from = min(from, r.From)
			}
		}
	} else if r, ok := prev(); ok {
		from = r.From
	} else if f, _, ok := parseRecallLine(live[a]); ok {
		from = f
	}
	if to < from {
		return seqRange{From: 1, To: max(to, through)}
	}
	return seqRange{From: from, To: to}
}

// alignSeqs reads the log a page at a time, from alignFirstPage records
// (about what a compaction's head or tail holds, so one read usually does)
// doubling up to alignMaxPage.
const (
	alignFirstPage = 16
	alignMaxPage   = 128
)

// alignSeqs numbers the messages of live that are verbatim copies of the
// log: those at the end, copies of its end (through, through-1, ...), back
// to the first that is not (a summary, a message the log never had); and
// those at the start, copies of its start (a system prompt counts as its
// first record, though a compaction note was added to it), up to the first
// that is not. The others get 0.
func (s *Session) alignSeqs(ctx context.Context, live []compact.Message, through int64) ([]int64, error) {
	seqs := make([]int64, len(live))
	i, j := len(live)-1, through
	if err := s.alignBack(ctx, live, seqs, i, j); err != nil {
		return nil, err
	}
	return seqs, s.alignFront(ctx, live, seqs, through)
}

// alignFront numbers the messages at the start of live, until one is
// numbered already or differs from the log.
func (s *Session) alignFront(ctx context.Context, live []compact.Message, seqs []int64, through int64) error {
	for i, j, page := 0, int64(1), int64(alignFirstPage); i < len(live) && seqs[i] == 0 && j <= through; page = min(2*page, alignMaxPage) {
		recs, err := s.store.Read(ctx, s.id, j, min(through, j+page-1))
		if err != nil || len(recs) == 0 {
			return err
		}
		for _, r := range recs {
			if i >= len(live) || seqs[i] != 0 || r.Seq != j {
				return nil
			}
			prompt := i == 0 && live[i].Role == compact.RoleSystem && r.Message.Role == compact.RoleSystem
			if !prompt && !sameMessage(live[i], r.Message) {
				return nil
			}
			seqs[i] = j
			i, j = i+1, j+1
		}
	}
	return nil
}

// alignBack numbers the messages of live from index i back, as copies of
// the records from j back, until one differs.
func (s *Session) alignBack(ctx context.Context, live []compact.Message, seqs []int64, i int, j int64) error {
	for page := int64(alignFirstPage); i >= 0 && j >= 1; page = min(2*page, alignMaxPage) {
		recs, err := s.store.Read(ctx, s.id, max(1, j-page+1), j)
		if err != nil || len(recs) == 0 {
			return err
		}
		for k := len(recs) - 1; k >= 0 && i >= 0; k-- {
			if recs[k].Seq != j || !sameMessage(live[i], recs[k].Message) {
				return nil
			}
			seqs[i] = j
			i, j = i-1, j-1
		}
	}
	return nil
}

// sameMessage reports whether a and b show a model the same message, as a
// store's round trip keeps it.
func sameMessage(a, b compact.Message) bool {
	return a.Role == b.Role && a.Name == b.Name && a.ToolCallID == b.ToolCallID &&
		len(a.MultiContent) == len(b.MultiContent) && len(a.ToolCalls) == len(b.ToolCalls) &&
		compact.Text(a) == compact.Text(b) && msg.ToolCallText(a) == msg.ToolCallText(b) &&
		sameCallIDs(a, b)
}

func sameCallIDs(a, b compact.Message) bool {
	for i := range a.ToolCalls {
		if a.ToolCalls[i].ID != b.ToolCalls[i].ID {
			return false
		}
	}
	return true
}
