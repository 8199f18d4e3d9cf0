package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
)

// The names of the recall tools a Session offers with WithRecall.
const (
	// ToolSearch finds text in every message the session ever held,
	// including the originals of what its summaries folded.
	ToolSearch = "context_search"
	// ToolExpand returns archived messages verbatim, by sequence number.
	ToolExpand = "context_expand"
	// ToolDescribe lists the session's compactions.
	ToolDescribe = "context_describe"
)

// DefaultToolBudget is the default size, in tokens, of one recall tool's
// answer: enough for a screenful of search hits or a long tool output, small
// beside a window (LCM's plugins answer in pages of about this size).
const DefaultToolBudget = 2000

// minToolBudget is the smallest budget WithToolBudget takes: below it an
// answer could not hold one search hit.
const minToolBudget = 200

// WithRecall sets whether the Session offers the model the recall tools
// (see Session.Tools): context_search, context_expand and
// context_describe, over the session's log in its Store. With recall on,
// every summary a compaction of the session writes ends with one line
// naming the archived range and the tools, so the model knows the
// originals can be read back. A Session given recall but no store keeps
// its log in a MemoryStore of its own. Off by default.
func WithRecall(on bool) Option {
	return func(c *config) { c.recall = on }
}

// WithToolBudget sets the most tokens (by the session's counter) one answer
// of a recall tool takes; a longer answer is cut and says how to get the
// rest. Zero or less means DefaultToolBudget; a budget under 200 tokens is
// raised to 200.
func WithToolBudget(tokens int) Option {
	return func(c *config) { c.toolBudget = tokens }
}

// Tools returns the recall tools when the Session was created WithRecall,
// nil otherwise, so a Session is a compact.ToolProvider. A host adds each
// Definition to its model requests and answers a call to a tool by name with
// its Handle; the session's engine may offer tools of its own (see Engine).
//
// Every tool reads this session's log and nothing else: no argument names a
// session, a snapshot or a store. Every answer is a JSON object the model can
// read, within the budget WithToolBudget sets; an answer that had to be cut
// says so ("truncated") and carries the arguments of the call that continues
// it ("next", with a "cursor"). Arguments the model got wrong (malformed
// JSON, an unknown field, an inverted range, a bad regular expression) are
// answered with {"error": "..."} and a nil error. Handle returns a non-nil
// error, beside the same kind of answer, only when the store failed or ctx
// ended: something for the host to log, not the model's doing. A search
// never runs unbounded: regular expressions are RE2 (linear in the text) and
// a search gives up after a few seconds with what it found and a cursor.
func (s *Session) Tools() []compact.Tool {
	if !s.recall {
		return nil
	}
	return []compact.Tool{
		{Definition: searchDefinition, Handle: s.handler(ToolSearch, s.search)},
		{Definition: expandDefinition, Handle: s.handler(ToolExpand, s.expand)},
		{Definition: describeDefinition, Handle: s.handler(ToolDescribe, s.describe)},
	}
}

var _ compact.ToolProvider = (*Session)(nil)

// recallOp answers one tool call whose arguments are args.
type recallOp func(ctx context.Context, args []byte) (any, error)

// handler wraps op so every answer is JSON: op's value, or an error object
// for a bad argument (argError) or a failing store.
func (s *Session) handler(name string, op recallOp) func(context.Context, string) (json.RawMessage, error) {
	return func(ctx context.Context, arguments string) (out json.RawMessage, err error) {
		v, err := op(ctx, []byte(arguments))
		var bad *argError
		switch {
		case errors.As(err, &bad):
			return errorResult(name + ": " + bad.msg), nil
		case err != nil:
			s.log.Warn("recall tool failed", "tool", name, errAttr(err))
			return errorResult(name + ": the archive could not be read; try again later"),
				fmt.Errorf("compact: session %q: %s: %w", s.id, name, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return errorResult(name + ": internal error"), fmt.Errorf("compact: session %q: %s: %w", s.id, name, err)
		}
		return b, nil
	}
}

// argError is a mistake in a tool call's arguments, told to the model.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func badArgs(format string, a ...any) error { return &argError{msg: fmt.Sprintf(format, a...)} }

// errorResult is the answer to a call that failed.
func errorResult(msg string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	return b
}

func function(name, description string, parameters string) openai.Tool {
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: name, Description: description, Parameters: json.RawMessage(parameters),
	}}
}

var searchDefinition = function(ToolSearch,
	"Search every message of this conversation, including the original messages that earlier compactions "+
		"summarised away (error output, file contents, commands, identifiers). Returns each matching message's "+
		"seq (its number in the conversation), role, tool name and the matching lines with a line of context. "+
		"Read a whole message with context_expand. Plain queries match text ignoring case; set regex for an RE2 "+
		"regular expression (case-sensitive unless it starts with (?i); ^ and $ match at line ends).",
	`{"type":"object","properties":{`+
		`"query":{"type":"string","description":"Text to find, or an RE2 regular expression when regex is true."},`+
		`"regex":{"type":"boolean","description":"Treat query as a regular expression."},`+
		`"role":{"type":"string","enum":["system","user","assistant","tool","developer"],"description":"Only messages of this role."},`+
		`"tool":{"type":"string","description":"Only results of this tool and the assistant turns that called it."},`+
		`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Most messages to return (default 20)."},`+
		`"cursor":{"type":"string","description":"From a previous answer's next, to continue it."}},`+
		`"required":["query"],"additionalProperties":false}`)

var expandDefinition = function(ToolExpand,
	"Return original messages of this conversation verbatim by seq: a range (from, to) or a list (seq). "+
		"Long answers come in pages; call again with the answer's next to read on.",
	`{"type":"object","properties":{`+
		`"from":{"type":"integer","minimum":1,"description":"First seq of a range."},`+
		`"to":{"type":"integer","minimum":1,"description":"Last seq of the range (default: from)."},`+
		`"seq":{"type":"array","items":{"type":"integer","minimum":1},"maxItems":100,"description":"Seqs to return, instead of a range."},`+
		`"cursor":{"type":"string","description":"From a previous answer's next, to continue it."}},`+
		`"additionalProperties":false}`)

var describeDefinition = function(ToolDescribe,
	"List every compaction of this conversation: the range of messages (seq) it summarised, when, "+
		"the tokens before and after, and which summarizer wrote the summary.",
	`{"type":"object","properties":{`+
		`"cursor":{"type":"string","description":"From a previous answer's next, to continue it."}},`+
		`"additionalProperties":false}`)
