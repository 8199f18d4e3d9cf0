package langchaingo

import (
	"errors"
	"fmt"

	"github.com/tmc/langchaingo/llms"
)

// ErrShape is what every error of Validate wraps: the history is not one
// langchaingo's providers send as it is.
var ErrShape = errors.New("langchaingo: history breaks the shape providers accept")

// Rule names one shape rule Validate checks.
type Rule int

// The rules Validate checks.
const (
	// RuleRole: a role langchaingo does not define.
	RuleRole Rule = iota + 1
	// RuleNilPart: a nil part, a nil pointer of a part type (it encodes as
	// null), or a CachedContent wrapping either.
	RuleNilPart
	// RuleEmpty: a message with no parts.
	RuleEmpty
	// RulePlacement: a tool call outside an AI message, or a tool call
	// response outside a tool or function message.
	RulePlacement
	// RuleToolMessage: a tool message holding something other than tool
	// call responses (the OpenAI provider refuses it).
	RuleToolMessage
	// RuleCall: a tool call with no id, no function or no function name
	// (providers dereference the function).
	RuleCall
	// RuleOrphanResponse: a tool call response that answers no unanswered
	// call of the AI message before it (only tool messages between).
	RuleOrphanResponse
	// RuleUnanswered: a tool call not answered before the next message
	// that is not a tool message. The calls of the last AI message may
	// still be running, so they may wait.
	RuleUnanswered
)

var ruleNames = [...]string{
	RuleRole:           "role",
	RuleNilPart:        "nil part",
	RuleEmpty:          "empty message",
	RulePlacement:      "part placement",
	RuleToolMessage:    "tool message",
	RuleCall:           "tool call",
	RuleOrphanResponse: "orphan tool response",
	RuleUnanswered:     "unanswered tool call",
}

// String returns the rule's short name.
func (r Rule) String() string {
	if r > 0 && int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("Rule(%d)", int(r))
}

// ShapeError reports one broken rule and where: Index is the message, Part
// the part in it (-1 for the message as a whole). It unwraps to ErrShape.
type ShapeError struct {
	Index, Part int
	Rule        Rule
	Detail      string
}

// Error returns a line such as
// `langchaingo: message 4, part 0: tool response "call_2" answers no call of the AI message before`.
func (e *ShapeError) Error() string {
	where := fmt.Sprintf("message %d", e.Index)
	if e.Part >= 0 {
		where += fmt.Sprintf(", part %d", e.Part)
	}
	return "langchaingo: " + where + ": " + e.Detail
}

// Unwrap returns ErrShape.
func (e *ShapeError) Unwrap() error { return ErrShape }

// Validate reports whether msgs is a history langchaingo's providers send
// as it is, by the rules this package keeps on everything it restores:
// known roles; no nil part (nor nil pointer part, bare or cache-wrapped)
// and no message without parts; tool calls only
// in AI messages, each with an id and a named function; tool messages
// holding tool call responses only; every response answering an
// unanswered call of the AI message before it, with only tool messages
// between; every call answered before the next message that is not a tool
// message, except the calls of the last AI message, whose tools may still
// be running. It returns nil or the first problem as a *ShapeError.
func Validate(msgs []llms.MessageContent) error {
	fail := func(i, p int, r Rule, format string, args ...any) error {
		return &ShapeError{Index: i, Part: p, Rule: r, Detail: fmt.Sprintf(format, args...)}
	}
	open := map[string]int{} // the unanswered calls of the last AI message, by id
	var order []string       // the same ids, in call order
	var callsAt int          // the index of that AI message
	for i, m := range msgs {
		switch m.Role {
		case llms.ChatMessageTypeSystem, llms.ChatMessageTypeHuman, llms.ChatMessageTypeGeneric, llms.ChatMessageTypeAI,
			llms.ChatMessageTypeTool, llms.ChatMessageTypeFunction:
		default:
			return fail(i, -1, RuleRole, "role %q is not one langchaingo defines", m.Role)
		}
		if len(m.Parts) == 0 {
			return fail(i, -1, RuleEmpty, "the %s message has no parts", m.Role)
		}
		if m.Role != llms.ChatMessageTypeTool {
			for _, id := range order {
				if open[id] > 0 {
					return fail(i, -1, RuleUnanswered, "tool call %q of message %d is not answered before this message", id, callsAt)
				}
			}
			open, order = map[string]int{}, nil
		}
		for p, part := range m.Parts {
			if problem := partProblem(part); problem != "" {
				return fail(i, p, RuleNilPart, "the part %s", problem)
			}
			tc, isCall := asCall(part)
			r, isResponse := asResponse(part)
			switch {
			case isCall && m.Role != llms.ChatMessageTypeAI:
				return fail(i, p, RulePlacement, "tool call %q in a message of role %q", tc.ID, m.Role)
			case isCall && (tc.ID == "" || tc.FunctionCall == nil || tc.FunctionCall.Name == ""):
				return fail(i, p, RuleCall, "tool call %q has no id, function or function name", tc.ID)
			case isCall:
				if open[tc.ID] == 0 {
					order = append(order, tc.ID)
				}
				open[tc.ID]++
				callsAt = i
			case isResponse && m.Role != llms.ChatMessageTypeTool && m.Role != llms.ChatMessageTypeFunction:
				return fail(i, p, RulePlacement, "tool response %q in a message of role %q", r.ToolCallID, m.Role)
			case isResponse && m.Role == llms.ChatMessageTypeTool:
				if open[r.ToolCallID] == 0 {
					return fail(i, p, RuleOrphanResponse, "tool response %q answers no unanswered call of the AI message before", r.ToolCallID)
				}
				open[r.ToolCallID]--
			case m.Role == llms.ChatMessageTypeTool:
				return fail(i, p, RuleToolMessage, "a %T in a tool message, which holds tool responses only", part)
			}
		}
	}
	return nil
}
