package compact

import (
	"strings"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/textcut"
	"github.com/contextkit/compact/redact"
)

// Defaults of RenderOptions. Sizes count characters (Unicode code points),
// which track tokens better than bytes across scripts: about four characters
// a token in English prose and code.
const (
	// defaultMaxMessageChars caps one message's text: about 1,000 tokens,
	// enough for a long request or the telling part of a tool's output.
	defaultMaxMessageChars = 4000
	// defaultHeadShare is the part of a long message kept from its start
	// (see textcut.HeadShare).
	defaultHeadShare = textcut.HeadShare
	// defaultMaxArgumentChars caps one tool call's arguments: a file written
	// or a patch sent through a tool is the model's own output and is mostly
	// visible again in later turns.
	defaultMaxArgumentChars = 1000
	// defaultMaxChars caps the whole rendering: about 30,000 tokens, which
	// leaves room for instructions and the summary in any model with a 64k
	// window or more.
	defaultMaxChars = 120000
	// minRenderChars is the smallest cap RenderOptions.MaxChars can set;
	// below it not even the markers fit.
	minRenderChars = 256
)

// RenderOptions controls RenderTurns. A zero field takes its default.
type RenderOptions struct {
	// MaxMessageChars caps each message's text. A longer text keeps its head
	// and tail around a marker saying how many characters were cut; the
	// result, marker included, fits the cap. Default 4,000; negative means
	// no cap.
	MaxMessageChars int

	// HeadShare is the fraction of a capped message kept from its start.
	// Values outside (0, 1) mean the default, 0.6.
	HeadShare float64

	// MaxArgumentChars caps each tool call's arguments. JSON arguments are
	// shortened by cutting the middle of their longest string values, so they
	// stay valid JSON whenever that brings them under the cap; other
	// arguments keep their head and tail. Default 1,000; negative means no
	// cap.
	MaxArgumentChars int

	// MaxChars caps the whole rendering; see [RenderTurns] for what is
	// dropped to fit. Default 120,000 (about 30,000 tokens); negative means
	// no cap; a positive value below 256 counts as 256.
	MaxChars int

	// Redact removes secrets from every text rendered. Nil means
	// [redact.String]; a host with secrets of its own can wrap it. Text that
	// is JSON (tool-call arguments, a tool's JSON output) is read as JSON
	// ([redact.JSONFunc]): Redact is applied to each string in it, decoded,
	// so a secret inside a quoted shell command goes as it would in plain
	// text, and a value under a key that names a secret ({"api_key": ...})
	// goes whole. Control characters are stripped (StripControl) before and
	// after it, whatever it does.
	Redact func(string) string

	// Reasoning includes assistants' reasoning content, capped like a
	// message. It is left out by default: it is the model's scratch work,
	// long, and what it concluded is usually in the reply itself.
	Reasoning bool
}

// withDefaults returns o with every zero field set to its default.
func (o RenderOptions) withDefaults() RenderOptions {
	if o.MaxMessageChars == 0 {
		o.MaxMessageChars = defaultMaxMessageChars
	}
	if !(o.HeadShare > 0 && o.HeadShare < 1) {
		o.HeadShare = defaultHeadShare
	}
	if o.MaxArgumentChars == 0 {
		o.MaxArgumentChars = defaultMaxArgumentChars
	}
	switch {
	case o.MaxChars == 0:
		o.MaxChars = defaultMaxChars
	case o.MaxChars > 0 && o.MaxChars < minRenderChars:
		o.MaxChars = minRenderChars
	}
	return o
}

// clean strips control characters and redacts s as o says, reading JSON
// as JSON.
func (o RenderOptions) clean(s string) string {
	if o.Redact == nil {
		return redact.JSON(s)
	}
	return redact.StripControl(redact.JSONFunc(s, o.Redact))
}

// cleanBlock redacts a block joined from parts cleaned one by one: what
// only their joining could form goes too.
func (o RenderOptions) cleanBlock(s string) string {
	if o.Redact == nil {
		return redact.String(s)
	}
	return redact.StripControl(o.Redact(redact.StripControl(s)))
}

// RenderTurns lays turns out as plain text for a summarizer to read.
//
// Each message is a block opening with a label: [system], [user],
// [assistant], [user (alice)] for a named author, [tool result call_3 (bash)]
// for a tool's output (the tool's name found the way Validate pairs results:
// the nearest earlier unanswered call with that id in the same group, so
// reused ids pair correctly; a result answering no call shows its id only).
// An assistant's tool calls follow its text, one a line, as
// "[tool call call_3] bash({...})". Images read as placeholders, never as
// their data (see Text). Blocks are separated by a blank line.
//
// Every text is cleaned of control characters and secrets (see
// RenderOptions.Redact) before it is shortened, so a cut never splits a
// secret into pieces the redactor cannot recognise, and each block is
// cleaned again once its parts are joined. A message longer than
// MaxMessageChars keeps its head and tail around a marker such as
// "[... 12000 characters cut ...]"; arguments longer than MaxArgumentChars
// are shortened likewise. Cuts fall on character boundaries, at a line break
// when one is near.
//
// When the blocks together exceed MaxChars, RenderTurns keeps, in this order
// of priority: the first real user message (the original ask, see
// IsRealUser); the most recent blocks, as many as fit; the blocks right after
// the first ask; the blocks from the start up to it. What is dropped is
// therefore older material between the kept parts, never the newest turns;
// each dropped run is replaced by one marker saying how many messages and
// characters it held. Without a real user message, the newest blocks that
// fit are kept. A kept block too long for the cap on its own is cut to fit.
// The result never exceeds MaxChars.
//
// RenderTurns never modifies turns, and the same input gives the same output.
func RenderTurns(turns []Message, opts RenderOptions) string {
	o := opts.withDefaults()
	blocks := make([]string, len(turns))
	names := toolNames(turns)
	for i, m := range turns {
		blocks[i] = o.cleanBlock(renderMessage(m, names[i], o))
	}
	return fitBlocks(turns, blocks, o)
}

// toolNames returns, for each tool message, the name of the call it answers
// ("" when it answers none), pairing as Validate does.
func toolNames(turns []Message) []string {
	names := make([]string, len(turns))
	var g msg.CallGroup
	for i, m := range turns {
		switch m.Role {
		case RoleAssistant:
			g = msg.NewCallGroup(i, m, nil)
		case RoleTool:
			if c, ok := g.AnswerCall(m.ToolCallID); ok {
				names[i] = c.Name
			}
		default:
			g = msg.CallGroup{}
		}
	}
	return names
}

// renderMessage renders one message as a block: label line, text, calls.
func renderMessage(m Message, toolName string, o RenderOptions) string {
	var b strings.Builder
	head := label(m, toolName, o)
	b.WriteString(head)
	text := o.clean(Text(m))
	if strings.TrimSpace(text) != "" {
		b.WriteByte('\n')
		b.WriteString(textcut.Middle(text, o.MaxMessageChars, textcut.InChars, o.HeadShare, textcut.LineMarker))
	}
	if r := strings.TrimSpace(m.Refusal); r != "" {
		b.WriteString("\n[refusal] ")
		b.WriteString(textcut.Middle(o.clean(r), o.MaxMessageChars, textcut.InChars, o.HeadShare, textcut.LineMarker))
	}
	if o.Reasoning && strings.TrimSpace(m.ReasoningContent) != "" {
		b.WriteString("\n[reasoning] ")
		b.WriteString(textcut.Middle(o.clean(m.ReasoningContent), o.MaxMessageChars, textcut.InChars, o.HeadShare, textcut.LineMarker))
	}
	for _, c := range m.ToolCalls {
		b.WriteString("\n[tool call")
		if c.ID != "" {
			b.WriteByte(' ')
			b.WriteString(o.clean(c.ID))
		}
		b.WriteString("] ")
		b.WriteString(callText(c.Function.Name, c.Function.Arguments, o))
	}
	if fc := m.FunctionCall; fc != nil {
		b.WriteString("\n[function call] ")
		b.WriteString(callText(fc.Name, fc.Arguments, o))
	}
	if b.Len() == len(head) {
		b.WriteString("\n(empty)")
	}
	return b.String()
}

// label is a block's first line.
func label(m Message, toolName string, o RenderOptions) string {
	var b strings.Builder
	b.WriteByte('[')
	switch m.Role {
	case RoleTool:
		b.WriteString("tool result")
		if m.ToolCallID != "" {
			b.WriteByte(' ')
			b.WriteString(o.clean(m.ToolCallID))
		}
		if toolName != "" {
			b.WriteString(" (" + o.clean(toolName) + ")")
		}
	case "function":
		b.WriteString("function result")
		if m.Name != "" {
			b.WriteString(" (" + o.clean(m.Name) + ")")
		}
	case "":
		b.WriteString("unknown role")
	default:
		b.WriteString(o.clean(m.Role))
		if m.Name != "" {
			b.WriteString(" (" + o.clean(m.Name) + ")")
		}
	}
	b.WriteByte(']')
	return textcut.Middle(b.String(), labelChars, textcut.InChars, defaultHeadShare, textcut.InlineMarker)
}

// labelChars caps a label, whose ids and names come from the input.
const labelChars = 200

// callText renders one tool call as name(arguments), the arguments cleaned
// and shortened.
func callText(name, args string, o RenderOptions) string {
	name = textcut.Middle(o.clean(name), labelChars, textcut.InChars, defaultHeadShare, textcut.InlineMarker)
	return name + "(" + textcut.Arguments(o.clean(args), o.MaxArgumentChars, o.HeadShare) + ")"
}
