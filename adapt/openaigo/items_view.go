package openaigo

import (
	"fmt"
	"strconv"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
)

// This file builds the messages an engine reads for a list of items: one
// message for each system, developer or user message, each call output and
// each compaction item, and one assistant message for each run of what the
// model wrote (its messages, reasoning, calls and hosted tools' calls), so
// that parallel calls share a turn as in Chat Completions and reasoning
// stays with the turn it belongs to.

// span is the items one message stands for: items[from:to].
type span struct{ from, to int }

// spans groups the items into messages. A glue item joins the message
// before it (the first message, when it comes first). An assistant message
// that holds a summary is a message of its own, so that a summary never
// merges with a real turn.
func (c *ItemConversion) groupSpans() []span {
	var out []span
	open := false // the last message is a run of model items that may go on
	lead := 0     // glue items before the first message
	for i := range c.wires {
		k := c.sorted.kinds[i]
		if k == kindGlue {
			if len(out) == 0 {
				lead++
			} else {
				out[len(out)-1].to = i + 1
			}
			continue
		}
		summary := k == kindModel && c.isSummaryItem(i)
		if k == kindModel && open && !summary {
			out[len(out)-1].to = i + 1
			continue
		}
		out = append(out, span{from: i, to: i + 1})
		open = k == kindModel && !summary
	}
	if len(out) > 0 {
		out[0].from -= lead
	}
	return out
}

// isSummaryItem reports whether item i is an assistant message whose text
// is a summary.
func (c *ItemConversion) isSummaryItem(i int) bool {
	w := c.wires[i]
	if c.sorted.kinds[i] != kindModel || w.Role != compact.RoleAssistant {
		return false
	}
	text, parts, _ := messageContent(w)
	m := compact.Message{Role: compact.RoleAssistant, Content: text, MultiContent: parts}
	return compact.IsSummary(m)
}

// view is the message span s reads as.
func (c *ItemConversion) view(s span, data [][]byte) compact.Message {
	first := s.from
	for first < s.to-1 && c.sorted.kinds[first] == kindGlue {
		first++
	}
	w := c.wires[first]
	switch c.sorted.kinds[first] {
	case kindInstruction:
		if w.Type == typeAdditionalTools || w.Type == typeConfigurationUpdate {
			return compact.Message{Role: roleDeveloper, Content: "[" + w.Type + "] " + compactJSON(data[first])}
		}
		return messageView(w)
	case kindUser:
		return messageView(w)
	case kindOutput:
		return outputView(w)
	case kindCompaction:
		return compact.Message{Role: compact.RoleUser, Content: compactionText(len(w.EncryptedContent))}
	case kindModel:
		return c.groupView(s, data)
	}
	// Only glue: an item that stands for no message, alone.
	return compact.Message{Role: compact.RoleUser, Content: "[" + w.Type + "]"}
}

// compactionText is the summary a provider's compaction item reads as. Its
// encrypted content is left out of the count: the provider writes it to
// take fewer tokens than what it folded, and counting its ciphertext as text
// would make a freshly compacted history look over the threshold again.
func compactionText(size int) string {
	return compact.PrefixSummary(fmt.Sprintf(
		"[The provider compacted the earlier turns into an opaque item of %d bytes; its content cannot be read here.]", size))
}

// messageView is the message a system, developer or user message reads as:
// a string content as Content, a list as MultiContent, even of one part.
func messageView(w wire) compact.Message {
	text, parts, refusal := messageContent(w)
	return compact.Message{Role: w.Role, Content: text, MultiContent: parts, Refusal: refusal}
}

// messageContent reads a message's content: a string, or a list of parts
// (text, images; refusals apart; anything else as a short text).
func messageContent(w wire) (text string, parts []goopenai.ChatMessagePart, refusal string) {
	if s, ok := jsonString(w.Content); ok {
		return s, nil, ""
	}
	ps, _ := jsonParts(w.Content)
	var refusals []string
	for i, p := range ps {
		if p.Type == "refusal" {
			refusals = append(refusals, p.Refusal)
			continue
		}
		parts = append(parts, partView(p, w.Content, i))
	}
	return "", parts, strings.Join(refusals, "\n")
}

// partView is the part a content part reads as. raw is the list it is
// part i of, for a part this package gives no place of its own.
func partView(p wirePart, raw []byte, i int) goopenai.ChatMessagePart {
	switch p.Type {
	case "input_text", "output_text", "text", "summary_text", "reasoning_text":
		return textPart(p.Text)
	case "input_image":
		url := p.ImageURL
		if url == "" && p.FileID != "" {
			url = filePrefix + p.FileID // an image with neither keeps its empty URL
		}
		return goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeImageURL,
			ImageURL: &goopenai.ChatMessageImageURL{URL: url, Detail: goopenai.ImageURLDetail(p.Detail)}}
	case "input_file":
		name := firstOf(p.Filename, p.FileID, p.FileURL, "inline")
		if p.FileData != "" {
			name += ", " + strconv.Itoa(len(p.FileData)) + " bytes inline"
		}
		return textPart("[file: " + name + "]")
	case "input_audio":
		var a struct {
			Data   string `json:"data"`
			Format string `json:"format"`
		}
		_ = jsonUnmarshalLoose(p.InputAudio, &a)
		return textPart("[audio: " + a.Format + ", " + strconv.Itoa(len(a.Data)) + " bytes inline]")
	}
	if raws, ok := rawParts(raw); ok && i < len(raws) {
		return textPart(compactJSON(raws[i]))
	}
	return textPart("[" + p.Type + "]")
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// outputView is the tool message the output of a call reads as.
func outputView(w wire) compact.Message {
	m := compact.Message{Role: compact.RoleTool, ToolCallID: outputID(w)}
	switch w.Type {
	case typeComputerCallOutput:
		var shot wirePart
		_ = jsonUnmarshalLoose(w.Output, &shot)
		m.MultiContent = []goopenai.ChatMessagePart{partView(wirePart{Type: "input_image", ImageURL: shot.ImageURL, FileID: shot.FileID}, nil, 0)}
	case typeShellCallOutput:
		ps, _ := jsonParts(w.Output)
		var b []string
		for _, p := range ps {
			b = append(b, p.Stdout)
			if p.Stderr != "" {
				b = append(b, "[stderr] "+p.Stderr)
			}
		}
		m.Content = strings.Join(b, "\n")
	case typeApplyPatchCallOutput:
		m.Content, _ = jsonString(w.Output)
		if m.Content == "" {
			m.Content = "[apply_patch: " + w.Status + "]"
		}
	case typeToolSearchOutput:
		m.Content = compactJSON(w.Tools)
	case typeProgramOutput:
		m.Content, _ = jsonString(w.Result)
	case typeMcpApprovalResponse:
		m.Content = approvalText(w)
	default:
		if s, ok := jsonString(w.Output); ok {
			m.Content = s
			break
		}
		if ps, ok := jsonParts(w.Output); ok {
			for i, p := range ps {
				m.MultiContent = append(m.MultiContent, partView(p, w.Output, i))
			}
			break
		}
		m.Content = compactJSON(w.Output)
	}
	return m
}

func approvalText(w wire) string {
	if w.Approve != nil && *w.Approve {
		return "[approved]"
	}
	if w.Reason != "" {
		return "[denied: " + w.Reason + "]"
	}
	return "[denied]"
}

// groupView is the assistant message a run of model items reads as: the
// text of its messages and of its hosted tools' calls as content, its
// refusals as Refusal, its calls as ToolCalls, and its reasoning (summary,
// text and encrypted content) as ReasoningContent, so that the engine
// counts what a replayed reasoning item costs. A run with nothing else to
// show (reasoning alone) reads as its first item's type in brackets, so
// that it is never an empty turn; one that starts with an empty message is
// one.
func (c *ItemConversion) groupView(s span, data [][]byte) compact.Message {
	m := compact.Message{Role: compact.RoleAssistant}
	var parts []goopenai.ChatMessagePart
	var refusals, reasoning []string
	single := ""    // the content when the run is one message with a string content
	firstType := "" // the type of the first item, for a run with nothing to show
	messages := 0
	for i := s.from; i < s.to; i++ {
		w, k := c.wires[i], c.sorted.kinds[i]
		if k == kindGlue {
			continue
		}
		if firstType == "" {
			firstType = firstOf(w.Type, typeMessage)
		}
		switch {
		case w.Type == typeMessage || w.Type == "":
			messages++
			text, ps, refusal := messageContent(w)
			if text != "" {
				single = text
				parts = append(parts, textPart(text))
			}
			parts = append(parts, ps...)
			if refusal != "" {
				refusals = append(refusals, refusal)
			}
		case w.Type == typeReasoning:
			reasoning = append(reasoning, reasoningText(w)...)
		case c.sorted.calls[i]:
			m.ToolCalls = append(m.ToolCalls, callView(w))
		default:
			parts = append(parts, textPart(hostedText(w, data[i])))
		}
	}
	switch {
	case len(parts) == 1 && messages == 1 && single != "" && parts[0].Text == single:
		m.Content = single
	case len(parts) > 0:
		m.MultiContent = parts
	}
	m.Refusal = strings.Join(refusals, "\n")
	m.ReasoningContent = strings.Join(reasoning, "\n")
	if len(parts) == 0 && len(m.ToolCalls) == 0 && m.Refusal == "" && firstType != typeMessage {
		m.Content = "[" + firstType + "]"
	}
	return m
}

// reasoningText is what a reasoning item holds: its summary, its text and
// its encrypted content, each part on its own.
func reasoningText(w wire) []string {
	var out []string
	for _, p := range w.Summary {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	ps, _ := jsonParts(w.Content)
	for _, p := range ps {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	if w.EncryptedContent != "" {
		out = append(out, w.EncryptedContent)
	}
	return out
}

// callView is the tool call a call item reads as: a function call of type
// "function", a custom call of type "custom" whose arguments are its input,
// and any other call of its item type, named for its tool, whose arguments
// are its action (or code, or operation) as JSON.
func callView(w wire) goopenai.ToolCall {
	tc := goopenai.ToolCall{ID: callID(w), Type: goopenai.ToolType(w.Type)}
	f := &tc.Function
	switch w.Type {
	case typeFunctionCall:
		tc.Type = goopenai.ToolTypeFunction
		f.Name = w.Name
		f.Arguments, _ = jsonString(w.Arguments)
	case typeCustomToolCall:
		tc.Type = toolTypeCustom
		f.Name, f.Arguments = w.Name, w.Input
	case typeMcpApprovalRequest:
		f.Name = w.Name
		f.Arguments, _ = jsonString(w.Arguments)
	case typeProgram:
		f.Name, f.Arguments = "program", w.Code
	case typeToolSearchCall:
		f.Name, f.Arguments = "tool_search", compactJSON(w.Arguments)
	case typeApplyPatchCall:
		f.Name, f.Arguments = "apply_patch", compactJSON(w.Operation)
	default:
		f.Name = strings.TrimSuffix(w.Type, "_call")
		f.Arguments = firstOf(compactJSON(w.Action), compactJSON(w.Actions))
	}
	return tc
}

// hostedText is the text a call the server ran, or an item this package
// gives no place of its own, reads as: its type and what it holds, an
// image's bytes as their size.
func hostedText(w wire, data []byte) string {
	switch w.Type {
	case "image_generation_call":
		r, _ := jsonString(w.Result)
		return "[image_generation_call: " + strconv.Itoa(len(r)) + " bytes]"
	case "web_search_call":
		return "[web_search_call] " + compactJSON(w.Action)
	case "mcp_call":
		out, _ := jsonString(w.Output)
		a, _ := jsonString(w.Arguments)
		return "[mcp_call] " + w.ServerLabel + "." + w.Name + "(" + a + ") -> " + out
	case typeMcpApprovalRequest:
		a, _ := jsonString(w.Arguments)
		return "[mcp_approval_request] " + w.ServerLabel + "." + w.Name + "(" + a + ")"
	}
	return "[" + w.Type + "] " + compactJSON(data)
}
