package prune

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/textcut"
	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
)

// pruner applies Prune's rules to a view, recording each replacement.
type pruner struct {
	*view
	cfg     config
	repl    []*Message // per message: its replacement, or nil
	changes []Change
}

// set replaces message i by m when that saves at least minSaving
// tokens, and records the change. It reports whether it did. m must share
// nothing with the input.
func (p *pruner) set(i int, m Message, kind Kind, id, tool, note string) bool {
	if p.counts[i] < minSaving {
		return false
	}
	after := p.cfg.counter.CountMessage(m)
	if p.counts[i]-after < minSaving {
		return false
	}
	p.repl[i] = &m
	p.changes = append(p.changes, Change{Index: i, Kind: kind, ToolCallID: id, Tool: tool,
		TokensBefore: p.counts[i], TokensAfter: after, Note: note})
	return true
}

// results deduplicates and masks old tool results, newest first, so that a
// back-reference always names a result that stays in the history verbatim.
func (p *pruner) results() {
	stays := make(map[dedupKey]int) // content -> index of a result that stays
	for i := len(p.msgs) - 1; i >= 0; i-- {
		m := p.msgs[i]
		if m.Role != msg.RoleTool || p.repl[i] != nil || isPruned(m) {
			continue
		}
		key := contentKey(m)
		if p.maskable(i) {
			u, _ := p.use(i)
			desc := p.describe(i)
			if j, ok := stays[key]; ok && p.cfg.on(Deduplicated) {
				text := dedupText(desc, p.msgs[j].ToolCallID, msg.Text(m))
				if p.set(i, msg.ReplaceText(m, text), Deduplicated, m.ToolCallID, u.name, "same as the result of "+p.msgs[j].ToolCallID) {
					continue
				}
			}
			if p.cfg.on(Masked) {
				text, note := maskText(desc, msg.Text(m))
				if p.set(i, msg.ReplaceText(m, text), Masked, m.ToolCallID, u.name, note) {
					continue
				}
			}
		}
		if _, ok := stays[key]; !ok {
			stays[key] = i
		}
	}
}

// dedupKey is a tool result's exact content, for deduplication: its
// Content, or every field of every part.
type dedupKey struct {
	parts bool
	s     string
}

func contentKey(m Message) dedupKey {
	if len(m.MultiContent) == 0 {
		return dedupKey{s: m.Content}
	}
	var b strings.Builder
	for _, pt := range m.MultiContent {
		b.WriteString(string(pt.Type))
		b.WriteByte(0)
		b.WriteString(pt.Text)
		b.WriteByte(0)
		if pt.ImageURL != nil {
			b.WriteString(pt.ImageURL.URL)
			b.WriteByte(0)
			b.WriteString(string(pt.ImageURL.Detail))
		}
		b.WriteByte(0)
	}
	return dedupKey{parts: true, s: b.String()}
}

// pressure demotes the largest tool results of a tail over its budget,
// largest first, until it fits.
func (p *pruner) pressure() {
	n := len(p.msgs)
	tail := 0
	for i := p.to; i < n; i++ {
		tail += p.counts[i]
	}
	if tail <= p.cfg.pressure {
		return
	}
	var cands []int
	for i := p.to; i < n-pressureKeepMessages && i < p.pendingFrom; i++ {
		if p.msgs[i].Role == msg.RoleTool && !p.keepsResult(i) && p.counts[i] >= minSaving {
			cands = append(cands, i)
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return p.counts[cands[a]] > p.counts[cands[b]] })
	for _, i := range cands {
		if tail <= p.cfg.pressure {
			return
		}
		m := p.msgs[i]
		u, _ := p.use(i)
		text, note := demoteText(p.describe(i), msg.Text(m))
		if p.set(i, msg.ReplaceText(m, text), Demoted, m.ToolCallID, u.name, note) {
			tail -= p.changes[len(p.changes)-1].saved()
		}
	}
}

// fit trims the largest messages of any role, largest first, while the
// whole history, with the changes made so far, is over the fit budget.
func (p *pruner) fit() {
	n := len(p.msgs)
	total := tokens.CountMessages(p.cfg.counter, p.msgs)
	for _, c := range p.changes {
		total -= c.saved()
	}
	if total <= p.cfg.fit {
		return
	}
	var cands []int
	for i := 0; i < n-pressureKeepMessages && i < p.pendingFrom; i++ {
		if p.trimmable(i) {
			cands = append(cands, i)
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return p.counts[cands[a]] > p.counts[cands[b]] })
	for _, i := range cands {
		if total <= p.cfg.fit {
			return
		}
		m := p.msgs[i]
		var text, note string
		var id, tool string
		if m.Role == msg.RoleTool {
			u, _ := p.use(i)
			id, tool = m.ToolCallID, u.name
			text, note = demoteText(p.describe(i), msg.Text(m))
		} else {
			text, note = trimText(m.Role, msg.Text(m))
			if len(m.ToolCalls) > 0 {
				id, tool = m.ToolCalls[0].ID, m.ToolCalls[0].Function.Name
			}
		}
		if p.set(i, msg.ReplaceText(m, text), Trimmed, id, tool, note) {
			total -= p.changes[len(p.changes)-1].saved()
		}
	}
}

// trimmable reports whether the fit pass may trim message i: none of the
// rules changed it, it is not protected, and it has text to cut and no
// image.
func (p *pruner) trimmable(i int) bool {
	m := p.msgs[i]
	switch {
	case p.repl[i] != nil, p.counts[i] < minSaving, i == p.latestUser,
		msg.IsSystem(m), msg.IsSummary(m), msg.HasImages(m), isTrimmed(m):
		return false
	case m.Role == msg.RoleTool:
		return !p.keepsResult(i)
	}
	return true
}

// images replaces the image parts of user and tool messages older than the
// newest message with an image by text notes.
func (p *pruner) images() {
	for i := 0; i < p.newestImage; i++ {
		m := p.msgs[i]
		if p.repl[i] != nil || !msg.HasImages(m) || !p.prunable(i) {
			continue
		}
		switch m.Role {
		case msg.RoleUser:
		case msg.RoleTool:
			if p.recent(p.useOf[i]) || p.keepsResult(i) {
				continue
			}
		default:
			continue
		}
		out, k := withoutImages(m)
		u, _ := p.use(i)
		note := "replaced 1 image by a note"
		if k > 1 {
			note = "replaced " + strconv.Itoa(k) + " images by notes"
		}
		p.set(i, out, ImagesReplaced, m.ToolCallID, u.name, note)
	}
}

// withoutImages returns m with each image part replaced by a text note, and
// how many it replaced. A message left with text only holds it in Content.
func withoutImages(m Message) (Message, int) {
	out := msg.CloneMessage(m)
	k := 0
	texts := true
	for j, pt := range out.MultiContent {
		if msg.IsImagePart(pt) {
			url := ""
			if pt.ImageURL != nil {
				url = pt.ImageURL.URL
			}
			out.MultiContent[j] = openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText,
				Text: prunedPrefix + " " + msg.ImagePlaceholder(url)}
			k++
		} else if pt.Type != openai.ChatMessagePartTypeText && pt.Type != "" {
			texts = false
		}
	}
	if texts {
		out = msg.ReplaceText(out, msg.Text(out))
	}
	return out, k
}

// arguments shortens the long arguments of old tool calls in the range.
func (p *pruner) arguments() {
	for i, m := range p.msgs {
		if m.Role != msg.RoleAssistant || len(m.ToolCalls) == 0 || !p.prunable(i) {
			continue
		}
		var out *Message
		var ids []string
		first := -1
		for k, c := range m.ToolCalls {
			if p.recent(p.firstUse[i] + k) {
				continue
			}
			short, ok := pruneArguments(c.Function.Arguments, p.cfg.argChars)
			if !ok {
				continue
			}
			if out == nil {
				cm := msg.CloneMessage(m)
				out, first = &cm, k
			}
			out.ToolCalls[k].Function.Arguments = short
			ids = append(ids, c.ID)
		}
		if out != nil {
			c := m.ToolCalls[first]
			p.set(i, *out, ArgumentsShortened, c.ID, c.Function.Name, "shortened the arguments of "+strings.Join(ids, ", "))
		}
	}
}

// pruneArguments returns args shortened to about limit characters, and
// whether it changed them. In valid JSON each string value longer than
// half the limit is cut in its middle to that length (keys are kept), so
// the arguments still parse and a second pass changes nothing; other text
// keeps its head and tail around a marker.
func pruneArguments(args string, limit int) (string, bool) {
	if len(args) <= limit || utf8.RuneCountInString(args) <= limit {
		return args, false
	}
	var out string
	if json.Valid([]byte(args)) {
		out = shortenJSONValues(args, max(limit/2, minArgValueChars))
	} else {
		out = textcut.Middle(args, limit, textcut.InChars, textcut.HeadShare, textcut.InlineMarker)
	}
	return out, out != args
}

// minArgValueChars is the least a JSON value is cut to: the marker and a
// recognisable head and tail.
const minArgValueChars = 2 * textcut.MinStringKeep

// shortenJSONValues cuts every string value of the valid JSON text s whose
// literal is longer than target characters to a literal of at most target
// characters. Keys, numbers and structure are kept byte for byte.
func shortenJSONValues(s string, target int) string {
	return textcut.ReplaceLongStrings(s, textcut.StringSpans(s), target, textcut.HeadShare, func(sp textcut.Span) bool { return isKey(s, sp.End) })
}

// isKey reports whether the string literal ending at end is an object key:
// the next character that is not JSON whitespace is a colon.
func isKey(s string, end int) bool {
	for ; end < len(s); end++ {
		switch s[end] {
		case ' ', '\t', '\n', '\r':
		case ':':
			return true
		default:
			return false
		}
	}
	return false
}
