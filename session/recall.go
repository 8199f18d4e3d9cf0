package session

import (
	"bytes"
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
// its log in a store.Memory of its own. Off by default.
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

// Tools returns the recall tools when the Session was opened WithRecall,
// nil otherwise, so a Session is a compact.ToolProvider. A host adds each
// Definition to its model requests and answers a call to a tool by name with
// its Handle; the session's engine may offer tools of its own (see Engine).
// Each call returns definitions of its own, which the caller may change.
//
// Every tool reads this session's log and nothing else: no argument names a
// session, a snapshot or a store. Every answer, an error included, is one
// JSON object the model can read (written without HTML escaping, which
// would multiply the tokens of every <, > and &), within the budget
// WithToolBudget sets; an answer that had to be cut says so ("truncated")
// and carries the arguments of the call that continues it ("next", with a
// "cursor"; a query too long to repeat is left out, and must be sent
// again). Arguments the model got wrong (malformed JSON, an unknown field,
// a number out of range, an inverted range, a bad regular expression) are
// answered with {"error": "..."}, which quotes at most the start of a bad
// value, and a nil error. Handle returns a non-nil error, beside the same
// kind of answer, only when the store failed or ctx ended: something for
// the host to log, not the model's doing. A search never runs unbounded:
// regular expressions are RE2 (linear in the text) and a search gives up
// after a few seconds with what it found and a cursor. A search leaves out
// the recall tools' own calls and results unless its tool filter names one
// of them.
func (s *Session) Tools() []compact.Tool {
	if !s.recall {
		return nil
	}
	return []compact.Tool{
		{Definition: searchDefinition(), Handle: s.handler(ToolSearch, s.search)},
		{Definition: expandDefinition(), Handle: s.handler(ToolExpand, s.expand)},
		{Definition: describeDefinition(), Handle: s.handler(ToolDescribe, s.describe)},
	}
}

var _ compact.ToolProvider = (*Session)(nil)

// recallOp answers one tool call whose arguments are args, in at most
// limit tokens.
type recallOp func(ctx context.Context, args []byte, limit int) (any, error)

// maxRefits bounds how often an answer is made again, smaller, when the
// whole came out over the budget although its parts fit (a tokenizer may
// count a concatenation differently from its parts): after that, the answer
// is an error asking for less.
const maxRefits = 3

// handler wraps op so every answer is JSON within the budget: op's value,
// or an error object for a bad argument (argError) or a failing store.
func (s *Session) handler(name string, op recallOp) func(context.Context, string) (json.RawMessage, error) {
	return func(ctx context.Context, arguments string) (json.RawMessage, error) {
		limit := s.toolBudget
		for try := 0; ; try++ {
			v, err := op(ctx, []byte(arguments), limit)
			var bad *argError
			switch {
			case errors.As(err, &bad):
				return s.errorAnswer(name + ": " + bad.msg), nil
			case err != nil:
				s.log.Warn("recall tool failed", "tool", name, errAttr(err))
				return s.errorAnswer(name + ": the archive could not be read; try again later"), s.errorf(name, err)
			}
			b, err := marshalJSON(v)
			if err != nil {
				return s.errorAnswer(name + ": internal error"), s.errorf(name, err)
			}
			over := s.counter.CountText(string(b)) - s.toolBudget
			if over <= 0 {
				return b, nil
			}
			s.log.Debug("recall answer over its budget; making it smaller", "tool", name, "over", over)
			if try == maxRefits {
				return s.errorAnswer(name + ": the answer does not fit the budget; ask for less (a narrower query, a shorter range)"), nil
			}
			limit = max(limit-over-refitMargin, 1)
		}
	}
}

// refitMargin is what an answer made again gives up beyond the tokens it
// was over: a few, so that one more try is rarely needed.
const refitMargin = 8

// marshalJSON writes v as JSON without HTML escaping: an answer is read by
// a model, never embedded in a page, and \u003c takes several tokens where
// < takes one.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// argError is a mistake in a tool call's arguments, told to the model.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func badArgs(format string, a ...any) error { return &argError{msg: fmt.Sprintf(format, a...)} }

// errorObject is the answer to a call that failed.
type errorObject struct {
	Error string `json:"error"`
}

// errorAnswer is the answer to a call that failed with msg, cut to fit the
// budget.
func (s *Session) errorAnswer(msg string) json.RawMessage {
	b := &budget{counter: s.counter, left: s.toolBudget}
	if b.cost(errorObject{msg}) > b.left {
		n := b.fit(msg, func(t string) any { return errorObject{t + ellipsis} })
		msg = msg[:n] + ellipsis
	}
	out, err := marshalJSON(errorObject{msg})
	if err != nil {
		return json.RawMessage(`{"error":"internal error"}`)
	}
	return out
}

// Bounds of the numbers the recall tools take, written into their schemas.
const (
	// maxSeq is the largest seq (and byte offset or line) a call may give:
	// 2^53-1, the largest integer every JSON reader holds exactly
	// (JavaScript's Number.MAX_SAFE_INTEGER). No log comes near it, and
	// below it no arithmetic on a seq can overflow an int64.
	maxSeq = 1<<53 - 1
	// maxCursor is the longest cursor a tool gives: two numbers up to
	// maxSeq and a colon.
	maxCursor = 2*16 + 1
)

func function(name, description string, parameters string) openai.Tool {
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: name, Description: description, Parameters: json.RawMessage(parameters),
	}}
}

// cursorParam is the schema of the cursor every tool takes.
var cursorParam = fmt.Sprintf(`"cursor":{"type":"string","maxLength":%d,"description":"From a previous answer's next, to continue it."}`, maxCursor)

// seqParam is the schema of an integer seq, described by what.
func seqParam(name, what string) string {
	return fmt.Sprintf(`%q:{"type":"integer","minimum":1,"maximum":%d,"description":%q}`, name, maxSeq, what)
}

func searchDefinition() openai.Tool {
	return function(ToolSearch,
		"Search every message of this conversation, including the original messages that earlier compactions "+
			"summarised away (error output, file contents, commands, identifiers). Returns each matching message's "+
			"seq (its number in the conversation), role, tool name and the matching lines (line number, byte offset) "+
			"with a line of context. Read a message with context_expand, around a hit with its line or offset. "+
			"Plain queries match text ignoring case; set regex for an RE2 regular expression (case-sensitive unless it "+
			"starts with (?i); ^ and $ match at line ends). The recall tools' own calls and results are left out "+
			"unless tool names one of them.",
		fmt.Sprintf(`{"type":"object","properties":{`+
			`"query":{"type":"string","maxLength":%d,"description":"Text to find, or an RE2 regular expression when regex is true."},`+
			`"regex":{"type":"boolean","description":"Treat query as a regular expression."},`+
			`"role":{"type":"string","enum":["system","user","assistant","tool","developer"],"description":"Only messages of this role."},`+
			`"tool":{"type":"string","maxLength":%d,"description":"Only results of this tool and the assistant turns that called it."},`+
			`"limit":{"type":"integer","minimum":1,"maximum":%d,"description":"Most messages to return (default %d)."},`+
			`%s},"required":["query"],"additionalProperties":false}`,
			maxQuery, maxToolName, maxSearchLimit, defaultSearchLimit, cursorParam))
}

func expandDefinition() openai.Tool {
	return function(ToolExpand,
		"Return original messages of this conversation verbatim by seq: a range (from, to) or a list (seq). "+
			"To read around a search hit, give its seq as from and its line or offset. "+
			"Long answers come in pages; call again with the answer's next to read on.",
		fmt.Sprintf(`{"type":"object","properties":{`+
			seqParam("from", "First seq of a range.")+`,`+
			seqParam("to", "Last seq of the range (default: from).")+`,`+
			`"seq":{"type":"array","items":{"type":"integer","minimum":1,"maximum":%d},"maxItems":%d,"description":"Seqs to return, instead of a range."},`+
			`"line":{"type":"integer","minimum":1,"maximum":%d,"description":"Start the first message at this line (a search hit's line), with the line before it."},`+
			`"offset":{"type":"integer","minimum":0,"maximum":%d,"description":"Start the first message around this byte (a search hit's offset)."},`+
			`%s},"additionalProperties":false}`,
			maxSeq, maxExpandSeqs, maxSeq, maxSeq, cursorParam))
}

func describeDefinition() openai.Tool {
	return function(ToolDescribe,
		"List every compaction of this conversation: the range of messages (seq) it summarised, when, "+
			"the tokens before and after, and which summarizer wrote the summary.",
		`{"type":"object","properties":{`+cursorParam+`},"additionalProperties":false}`)
}
