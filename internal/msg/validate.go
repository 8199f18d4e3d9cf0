package msg

import (
	"fmt"
	"sort"
)

// Rule names one way a history can fail to be a valid chat request. Its
// String is a short name for a person ("tool result without a call"); the
// rules are those Problems documents. compact.Rule has the same values.
type Rule int

// The rules Validate checks.
const (
	// RuleUnknownRole: a role other than system, developer, user, assistant
	// or tool.
	RuleUnknownRole Rule = iota + 1
	// RuleMissingToolCallID: a tool message without a tool_call_id.
	RuleMissingToolCallID
	// RuleOrphanResult: a tool result that answers no earlier unanswered
	// call of its group.
	RuleOrphanResult
	// RuleUnansweredCall: a tool call left unanswered when another turn
	// starts. Only the last group of calls in a history may wait.
	RuleUnansweredCall
	// RuleMissingCallID: an assistant tool call without an id.
	RuleMissingCallID
	// RuleEmptyAssistant: an assistant turn with no text, no image, no
	// refusal and no tool call.
	RuleEmptyAssistant
	// RuleBothContents: Content and MultiContent both set (go-openai
	// refuses to send such a message).
	RuleBothContents
)

var ruleNames = [...]string{
	RuleUnknownRole:       "unknown role",
	RuleMissingToolCallID: "tool message without tool_call_id",
	RuleOrphanResult:      "tool result without a call",
	RuleUnansweredCall:    "unanswered tool call",
	RuleMissingCallID:     "tool call without id",
	RuleEmptyAssistant:    "empty assistant turn",
	RuleBothContents:      "both content fields set",
}

// String returns the rule's short name.
func (r Rule) String() string {
	if r > 0 && int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("Rule(%d)", int(r))
}

// Problem reports one broken rule: where it is and what is wrong.
// compact.ValidationError carries the same fields.
type Problem struct {
	Index  int    // index of the offending message in the slice checked
	Rule   Rule   // the rule broken
	Detail string // what exactly is wrong, for a person to read
}

// Error returns a line such as
// `message 17: tool result "call_3" answers no earlier unanswered call`.
func (e *Problem) Error() string {
	return fmt.Sprintf("message %d: %s", e.Index, e.Detail)
}

// Validate reports whether msgs is a valid chat request, returning nil or the
// first problem (lowest index) as a *Problem. The rules: known roles
// only; every tool message has a tool_call_id and answers an unanswered call
// of the assistant turn it follows (results come after their calls, before
// any other turn); every tool call has an id and is answered before the next
// non-tool message, except the calls of the final group, which a host may
// still be running; no assistant turn is empty; no message sets both Content
// and MultiContent. Consecutive user or assistant turns are allowed: they are
// legal input, only compaction must not create them.
func Validate(msgs []Message) error {
	if ps := Problems(msgs); len(ps) > 0 {
		return ps[0]
	}
	return nil
}

// Problems returns every rule msgs breaks, ordered by message index.
func Problems(msgs []Message) []*Problem {
	var ps []*Problem
	add := func(i int, r Rule, format string, args ...any) {
		ps = append(ps, &Problem{Index: i, Rule: r, Detail: fmt.Sprintf(format, args...)})
	}
	var g CallGroup
	closeGroup := func() {
		for _, c := range g.Unanswered() {
			add(g.Index, RuleUnansweredCall, "tool call %q (%s) is never answered", c.ID, c.Name)
		}
		g = CallGroup{Calls: g.Calls[:0]}
	}
	for i, m := range msgs {
		if m.Content != "" && m.MultiContent != nil {
			add(i, RuleBothContents, "%s message sets both Content and MultiContent", m.Role)
		}
		switch m.Role {
		case RoleSystem, RoleDeveloper, RoleUser:
			closeGroup()
		case RoleAssistant:
			closeGroup()
			g = NewCallGroup(i, m, g.Calls[:0])
			for j, c := range m.ToolCalls {
				if c.ID == "" {
					add(i, RuleMissingCallID, "tool call %d (%s) has no id", j, c.Function.Name)
				}
			}
			if IsBlank(m) {
				add(i, RuleEmptyAssistant, "assistant turn is empty")
			}
		case RoleTool:
			switch {
			case m.ToolCallID == "":
				add(i, RuleMissingToolCallID, "tool message has no tool_call_id")
			case !g.Answer(m.ToolCallID):
				add(i, RuleOrphanResult, "tool result %q answers no earlier unanswered call", m.ToolCallID)
			}
		default:
			closeGroup()
			add(i, RuleUnknownRole, "unknown role %q", m.Role)
		}
	}
	// The calls still open here belong to the final group: they are pending,
	// not broken.
	sort.SliceStable(ps, func(a, b int) bool { return ps[a].Index < ps[b].Index })
	return ps
}

// CallGroup tracks the tool calls of one assistant turn while its results
// arrive. A result answers the earliest unanswered call with its id, so an id
// reused by a later turn (after the first call was answered) pairs with the
// call nearest before it.
type CallGroup struct {
	Index int // index of the assistant message; -1 when no group is open
	Calls []PendingCall
}

// PendingCall is one call of a CallGroup.
type PendingCall struct {
	ID, Name string
	Answered bool
}

// NewCallGroup opens the group of m's calls, in buf's storage (reusing a
// closed group's keeps a check of a long history from allocating per turn).
func NewCallGroup(i int, m Message, buf []PendingCall) CallGroup {
	g := CallGroup{Index: i, Calls: buf}
	for _, c := range m.ToolCalls {
		g.Calls = append(g.Calls, PendingCall{ID: c.ID, Name: c.Function.Name})
	}
	return g
}

// Answer marks the call id answers and reports whether there was one.
func (g *CallGroup) Answer(id string) bool {
	_, ok := g.AnswerCall(id)
	return ok
}

// AnswerCall marks the call id answers and returns it.
func (g *CallGroup) AnswerCall(id string) (PendingCall, bool) {
	for k := range g.Calls {
		if c := &g.Calls[k]; !c.Answered && c.ID == id && id != "" {
			c.Answered = true
			return *c, true
		}
	}
	return PendingCall{}, false
}

// Unanswered returns the calls of g not answered yet.
func (g *CallGroup) Unanswered() []PendingCall {
	var out []PendingCall
	for _, c := range g.Calls {
		if !c.Answered {
			out = append(out, c)
		}
	}
	return out
}
