package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
)

// wireMessage is a message as the command writes it: go-openai's fields
// and rules (content is a string or a list of parts, never both; empty
// fields left out), encoded without HTML escaping so code in transcripts
// stays readable ("a && b", not "a \u0026\u0026 b").
type wireMessage struct {
	Role             string               `json:"role"`
	Content          any                  `json:"content,omitempty"`
	Refusal          string               `json:"refusal,omitempty"`
	Name             string               `json:"name,omitempty"`
	ReasoningContent string               `json:"reasoning_content,omitempty"`
	FunctionCall     *openai.FunctionCall `json:"function_call,omitempty"`
	ToolCalls        []openai.ToolCall    `json:"tool_calls,omitempty"`
	ToolCallID       string               `json:"tool_call_id,omitempty"`
}

// encodeMessages returns msgs as an indented JSON array, ending in a
// newline.
func encodeMessages(msgs []compact.Message) ([]byte, error) {
	wire := make([]wireMessage, len(msgs))
	for i, m := range msgs {
		if m.Content != "" && len(m.MultiContent) > 0 {
			return nil, fmt.Errorf("message %d sets both content fields", i)
		}
		w := wireMessage{
			Role: m.Role, Refusal: m.Refusal, Name: m.Name, ReasoningContent: m.ReasoningContent,
			FunctionCall: m.FunctionCall, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID,
		}
		switch {
		case len(m.MultiContent) > 0:
			w.Content = m.MultiContent
		case m.Content != "":
			w.Content = m.Content
		}
		wire[i] = w
	}
	return encodeJSON(wire)
}

// encodeJSON indents v by two spaces without HTML escaping.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
