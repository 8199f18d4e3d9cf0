// Package promptsize estimates how many tokens the conversation section of
// a summarizer's prompt takes (the turns as compact.RenderTurns lays them
// out), without rendering or redacting it: from each message's token count,
// which a counter such as tokens.Exact remembers, scaled to the part of
// its text the rendering keeps, plus what the rendering adds around it.
//
// Rendering a long history and counting the result costs milliseconds
// (every text is redacted, then every block again, and the whole is
// tokenised); the estimate costs a few microseconds a message once the
// counts are known. The engine uses it only for a bill it estimates
// anyway: what a model summarizer is charged for its prompt.
package promptsize

import (
	"strconv"
	"strings"

	"github.com/contextkit/compact/internal/memo"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/textcut"
	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
)

// Caps are the rendering's limits, in characters, as RenderOptions names
// them: one message's text, one call's arguments, the whole rendering.
// A negative cap means none.
type Caps struct {
	Message, Arguments, Total int
	// GapMarker is the longest marker that stands for blocks dropped to
	// fit the total, and Separator what joins two blocks.
	GapMarker int
	Separator string
}

// sampleBytes bounds the text counted at each end of a capped text to
// learn how densely the part the rendering keeps packs its tokens: the
// message's own density misleads when a long middle (a dump of numbers,
// base64) is what the cut drops.
const sampleBytes = 600

// fixed are the tokens of the text the rendering adds around a message's
// own, counted once per estimate with the caller's counter.
type fixed struct {
	label, call, refusal, cut, gap, sep, empty int
}

// Turns estimates the tokens of the rendering of turns under caps, as tc
// counts text: each message's count less its framing, scaled to the
// characters the rendering keeps of it, plus the labels, markers and
// separators the rendering adds; blocks dropped to fit caps.Total are
// chosen as compact.RenderTurns chooses them and replaced by a marker.
// Reasoning content is left out, as the default rendering leaves it.
func Turns(turns []msg.Message, tc tokens.Counter, caps Caps) int {
	return TurnsMemo(turns, tc, caps, nil)
}

// Memo remembers each message's estimate for a message equal to it,
// estimated with the same tool name, caps and counter state (see
// TurnsMemo).
type Memo = memo.Table[block]

// NewMemo returns an empty Memo for the turns of a conversation.
func NewMemo() *Memo { return memo.NewTable[block](memoMessages) }

// memoMessages bounds a Memo: a long conversation's history twice over.
const memoMessages = 1 << 14

// block is what Turns works out of one message: its length in
// characters, its tokens (-1 until a rendering keeps it) and whether it
// ends a line, under name, caps and the counter's state.
type block struct {
	name          string
	caps          Caps
	state         any
	chars, tokens int
	nl            bool
}

// versioned is a counter whose counts change with a state it names (a
// calibration): an estimate made in another state is made again.
type versioned interface{ Version() any }

// TurnsMemo is Turns remembering the estimate of each message it
// estimates in m (nil remembers nothing), so estimating a grown history
// again costs the new messages.
func TurnsMemo(turns []msg.Message, tc tokens.Counter, caps Caps, m *Memo) int {
	if len(turns) == 0 {
		return 0
	}
	var state any
	if v, ok := tc.(versioned); ok {
		state = v.Version()
	}
	e := newEstimator(tc, caps)
	names := toolNames(turns)
	blocks := make([]block, len(turns))
	known := make([]bool, len(turns))
	// size returns block i's length in characters, estimating the block
	// when first asked: past caps.Total, the rendering's fit measures only
	// the blocks it takes and the first it cannot, so the middle of a long
	// history is never estimated.
	size := func(i int) int {
		if !known[i] {
			t := turns[i]
			b, ok := m.Get(t)
			if !ok || b.name != names[i] || b.caps != caps || b.state != state {
				b = block{name: names[i], caps: caps, state: state, chars: e.chars(t, names[i]), tokens: -1}
				m.Put(t, b)
			}
			blocks[i], known[i] = b, true
		}
		return blocks[i].chars
	}
	// Sizes are never negative: once the newest blocks exceed caps.Total,
	// the whole does.
	total := (len(turns) - 1) * len(caps.Separator)
	for i := len(turns) - 1; i >= 0 && (caps.Total < 0 || total <= caps.Total); i-- {
		total += size(i)
	}
	keep, cut := []bool(nil), -1
	if caps.Total >= 0 && total > caps.Total {
		keep, cut = fit(turns, size, caps)
	}
	out, nl := 0, false
	for i := 0; i < len(turns); {
		if i > 0 && !nl {
			out += e.fx.sep // after a newline, the separator's merge into one token
		}
		if keep == nil || keep[i] {
			size(i)
			b := &blocks[i]
			if b.tokens < 0 {
				b.tokens, b.nl = e.tokens(turns[i], names[i]), endsInNewline(turns[i])
				m.Put(turns[i], *b)
			}
			n := b.tokens
			nl = b.nl
			if i == cut {
				// Too long on its own: the rendering cuts it to the room there is.
				room := caps.Total - 2*(caps.GapMarker+len(caps.Separator)) - len(caps.Separator)
				n = n * room / max(b.chars, 1)
			}
			out += n
			i++
			continue
		}
		for i < len(turns) && !keep[i] {
			i++
		}
		out, nl = out+e.fx.gap, false
	}
	return out
}

// endsInNewline reports whether m's block ends in a line break, which the
// separator after it joins in one token.
func endsInNewline(m msg.Message) bool {
	if len(m.ToolCalls) > 0 || m.FunctionCall != nil || strings.TrimSpace(m.Refusal) != "" {
		return false
	}
	text := msg.Text(m)
	return strings.HasSuffix(text, "\n") && strings.TrimSpace(text) != ""
}

// runes is the length of s in characters, as the caps count it
// (utf8.RuneCountInString).
func runes(s string) int { return textcut.Runes(s) }

// keptChars returns how many characters of s a cap of limit keeps,
// counting s only where the cap's bite depends on it: a text over four
// bytes a character past the cap is cut to it, uncounted.
func keptChars(s string, limit int) int {
	if limit < 0 || len(s) <= limit {
		return runes(s)
	}
	if len(s) > 4*limit+4 {
		return limit
	}
	return min(runes(s), limit)
}

// kept returns about how many bytes of s a cap of limit keeps, and
// whether s is cut. Only the start of a text far over the cap is read: no
// character is over 4 bytes; a text no longer in bytes than the cap is
// not read at all.
func kept(s string, limit int) (bytes int, cut bool) {
	if limit < 0 || len(s) <= limit {
		return len(s), false
	}
	start := s[:min(len(s), 4*limit+4)]
	n := runes(start)
	if len(start) == len(s) && n <= limit {
		return len(s), false
	}
	return limit * len(start) / n, true
}

// chars estimates the length of m's block in characters, as the
// rendering's fit measures it.
func (e *estimator) chars(m msg.Message, toolName string) int {
	caps := e.caps
	n := 0
	if m.Role == msg.RoleTool {
		n += 14 + len(m.ToolCallID)
		if toolName != "" {
			n += 3 + len(toolName)
		}
	} else {
		n += 2 + len(m.Role)
		if m.Name != "" {
			n += 3 + len(m.Name)
		}
	}
	body := false
	if text := msg.Text(m); strings.TrimSpace(text) != "" {
		n += 1 + keptChars(text, caps.Message)
		body = true
	}
	if strings.TrimSpace(m.Refusal) != "" {
		n += 11 + keptChars(m.Refusal, caps.Message)
		body = true
	}
	for _, c := range m.ToolCalls {
		n += 15 + len(c.ID) + len(c.Function.Name) + runes(e.arguments(c.Function.Arguments))
		body = true
	}
	if fc := m.FunctionCall; fc != nil {
		n += 15 + len(fc.Name) + runes(e.arguments(fc.Arguments))
		body = true
	}
	if !body {
		n += 8
	}
	return n
}

// arguments returns args as the rendering shortens them to the cap,
// before redaction: JSON keeps every key, its long strings cut in the
// middle, often well under the cap. What it shortened is remembered for
// the second look.
func (e *estimator) arguments(args string) string {
	if e.caps.Arguments < 0 || len(args) <= e.caps.Arguments {
		return args
	}
	if short, ok := e.short[args]; ok {
		return short
	}
	short := textcut.Arguments(args, e.caps.Arguments, textcut.HeadShare)
	e.short[args] = short
	return short
}

// newEstimator measures what the rendering adds with tc.
func newEstimator(tc tokens.Counter, caps Caps) *estimator {
	return &estimator{tc: tc, caps: caps, frame: map[string]int{}, short: map[string]string{}, callFrame: -1, fx: fixed{
		// What a label and a call's line add, with the merges at their
		// edges, measured on a sample.
		label: tc.CountText("[assistant]\nDone.") - tc.CountText("Done."),
		call: tc.CountText("Done.\n[tool call x] f({\"a\": 1})") - tc.CountText("Done.") - tc.CountText("x") -
			tc.CountText("f") - tc.CountText(`{"a": 1}`),
		refusal: tc.CountText("\n[refusal] "),
		cut:     tc.CountText(textcut.Marker(textcut.LineMarker, 12345)),
		gap:     tc.CountText("[... 123 messages (123456 characters) cut to fit ...]"),
		sep:     tc.CountText(caps.Separator),
		empty:   tc.CountText("\n(empty)"),
	}}
}

// estimator estimates blocks' tokens with one counter.
type estimator struct {
	tc        tokens.Counter
	caps      Caps
	fx        fixed
	frame     map[string]int    // the count of an empty message, by role
	short     map[string]string // arguments over the cap, shortened
	callFrame int               // what a tool call adds besides its text; -1 until needed
}

// tokens estimates the tokens of m's block: the message's count, less its
// framing, spread over its bytes, for what the rendering keeps whole; the
// ends of a capped text counted to learn their own density.
func (e *estimator) tokens(m msg.Message, toolName string) int {
	tc := e.tc
	base, ok := e.frame[m.Role]
	if !ok {
		base = tc.CountMessage(msg.Message{Role: m.Role})
		e.frame[m.Role] = base
	}
	if m.Name != "" || m.ToolCallID != "" {
		// Names and ids pack more tokens a byte than text: count them.
		base = tc.CountMessage(msg.Message{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID})
	}
	text := msg.Text(m)
	images := false
	for _, p := range m.MultiContent {
		images = images || msg.IsImagePart(p)
	}
	own := len(m.Refusal) + len(m.ReasoningContent)
	calls := 0
	for _, c := range m.ToolCalls {
		own += len(c.Function.Name) + len(c.Function.Arguments) // a call's id is not counted
		calls++
	}
	if fc := m.FunctionCall; fc != nil {
		own += len(fc.Name) + len(fc.Arguments)
		calls++
	}
	if calls > 0 && e.callFrame < 0 {
		e.callFrame = max(tc.CountMessage(msg.Message{Role: msg.RoleAssistant, ToolCalls: make([]openai.ToolCall, 1)})-
			tc.CountMessage(msg.Message{Role: msg.RoleAssistant}), 0)
	}
	var perByte float64
	if images {
		// An image's count is not its placeholder's: count the text.
		perByte = float64(tc.CountText(text)) / float64(max(len(text), 1))
	} else {
		n := tc.CountMessage(m) - base - calls*max(e.callFrame, 0)
		perByte = float64(max(n, 0)) / float64(max(len(text)+own, 1))
	}
	tok := func(bytes int) float64 { return perByte * float64(bytes) }

	var t float64
	if m.Role == msg.RoleTool {
		label := "[tool result " + m.ToolCallID
		if toolName != "" {
			label += " (" + toolName + ")"
		}
		t += float64(tc.CountText(label + "]\n"))
	} else {
		t += float64(e.fx.label)
		if m.Name != "" {
			t += float64(tc.CountText(" (" + m.Name + ")"))
		}
	}
	body := false
	capped := func(s string, limit int) {
		body = true
		keep, cut := kept(s, limit)
		if !cut {
			t += tok(len(s))
			return
		}
		// The cut keeps limit characters, keep bytes or so, from both
		// ends. The more it drops, the less the message's density tells
		// of theirs: a sample of each end counted tells the rest.
		head := textcut.Head(s, min(keep*6/10, sampleBytes))
		tail := textcut.Tail(s, min(keep*4/10, sampleBytes))
		sampled := float64(tc.CountText(head)+tc.CountText(tail)) / float64(max(len(head)+len(tail), 1))
		w := float64(keep) / float64(len(s))
		t += (w*perByte+(1-w)*sampled)*float64(keep) + float64(e.fx.cut)
	}
	if strings.TrimSpace(text) != "" {
		capped(text, e.caps.Message)
	}
	if strings.TrimSpace(m.Refusal) != "" {
		t += float64(e.fx.refusal)
		capped(m.Refusal, e.caps.Message)
	}
	call := func(id, name, args string) {
		t += float64(e.fx.call+tc.CountText(id)) + tok(len(name))
		body = true
		if short := e.arguments(args); len(short) < len(args) {
			t += float64(tc.CountText(short)) // at most the cap: count it
		} else {
			t += tok(len(args))
		}
	}
	for _, c := range m.ToolCalls {
		call(c.ID, c.Function.Name, c.Function.Arguments)
	}
	if fc := m.FunctionCall; fc != nil {
		call("", fc.Name, fc.Arguments)
	}
	if !body {
		t += float64(e.fx.empty)
	}
	return int(t + 0.5)
}

// Request is what a summarizer's prompt is built from: the instructions,
// the previous summary's body, the focus, the turns and the target.
type Request struct {
	Instructions, Previous, Focus string
	Turns                         []msg.Message
	Target                        int
}

// Prompt estimates the tokens of the two messages compact.SummaryPrompt
// builds for r, as a chat request: the instructions as a system message
// (counted exactly) and the material as a user message, whose sections
// are counted as tc counts them and whose turns Turns estimates.
func Prompt(tc tokens.Counter, r Request, caps Caps) int {
	return PromptMemo(tc, r, caps, nil)
}

// PromptMemo is Prompt estimating the turns with TurnsMemo.
func PromptMemo(tc tokens.Counter, r Request, caps Caps, m *Memo) int {
	n := tc.CountMessage(msg.Message{Role: msg.RoleSystem, Content: r.Instructions}) +
		tc.CountMessage(msg.Message{Role: msg.RoleUser}) + tokens.ReplyPrimingTokens
	n += section(tc, "previous-summary", strings.TrimSpace(r.Previous)) + section(tc, "focus", strings.TrimSpace(r.Focus))
	turns := TurnsMemo(r.Turns, tc, caps, m)
	if turns == 0 {
		turns = tc.CountText("(no new turns)")
	}
	n += turns + tc.CountText("<conversation>\n\n</conversation>\n\n")
	closing := "Write the handoff note now"
	if strings.TrimSpace(r.Previous) != "" {
		closing = "Write the updated handoff note now"
	}
	if r.Target > 0 {
		closing += ", in about " + strconv.Itoa(r.Target) + " tokens"
	}
	return n + tc.CountText(closing+".")
}

// section returns the tokens text adds between a pair of tags; counting
// it as a message lets a remembering counter answer.
func section(tc tokens.Counter, tag, text string) int {
	if text == "" {
		return 0
	}
	n := tc.CountMessage(msg.Message{Role: msg.RoleUser, Content: text}) - tc.CountMessage(msg.Message{Role: msg.RoleUser})
	return n + tc.CountText("<"+tag+">\n\n</"+tag+">\n\n")
}
