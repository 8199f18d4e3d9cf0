package langchaingo

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
)

// RecallTool is one of a session's recall tools (context_search,
// context_expand, context_describe) as a langchaingo tool: it has the
// methods of tools.Tool (Name, Description, Call), so an agent takes it
// as one, and reads back, verbatim, what a summary folded.
type RecallTool struct {
	tool     compact.Tool
	required string // the one required argument, when there is one
}

// RecallTools returns s's recall tools as langchaingo tools; nil when s
// was not made WithRecall. This package does not import langchaingo's
// tools package (it would bring its calculator's interpreter along);
// append each to a []tools.Tool.
func RecallTools(s *session.Session) []RecallTool {
	var out []RecallTool
	for _, t := range s.Tools() {
		out = append(out, RecallTool{tool: t, required: onlyRequired(t.Definition.Function.Parameters)})
	}
	return out
}

// onlyRequired returns the one required property of a JSON schema, or "".
func onlyRequired(params any) string {
	data, err := json.Marshal(params)
	if err != nil {
		return ""
	}
	var schema struct {
		Required []string `json:"required"`
	}
	if json.Unmarshal(data, &schema) != nil || len(schema.Required) != 1 {
		return ""
	}
	return schema.Required[0]
}

// Name returns the tool's name.
func (t RecallTool) Name() string {
	if t.tool.Definition.Function == nil {
		return ""
	}
	return t.tool.Definition.Function.Name
}

// Description returns the tool's description and the JSON its input is.
func (t RecallTool) Description() string {
	f := t.tool.Definition.Function
	if f == nil {
		return ""
	}
	params, _ := json.Marshal(f.Parameters)
	return f.Description + " Input: a JSON object with the schema " + string(params) + "."
}

// Call answers input, the tool's JSON arguments, with the tool's JSON
// answer. An input that is not a JSON object is taken as the value of the
// tool's one required argument (the query of context_search), as a text
// agent writes it. Arguments the model got wrong are answered, not failed;
// the error is the store's or ctx's.
func (t RecallTool) Call(ctx context.Context, input string) (string, error) {
	args := strings.TrimSpace(input)
	if !strings.HasPrefix(args, "{") && t.required != "" {
		data, err := json.Marshal(map[string]string{t.required: input})
		if err != nil {
			return "", err
		}
		args = string(data)
	}
	out, err := t.tool.Handle(ctx, args)
	return string(out), err
}
