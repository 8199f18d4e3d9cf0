package compact

import (
	"github.com/contextkit/compact/internal/msg"
)

// Rule names one way a history can fail to be a valid chat request. Its
// String is a short name for a person ("tool result without a call"); the
// rules are those Validate documents.
type Rule int

// The rules Validate and Problems check. A host compares a
// [ValidationError]'s Rule with them; String gives the short name in
// parentheses.
const (
	// RuleUnknownRole: a role other than system, developer, user,
	// assistant or tool ("unknown role").
	RuleUnknownRole = Rule(msg.RuleUnknownRole)
	// RuleMissingToolCallID: a tool message without a tool_call_id ("tool
	// message without tool_call_id").
	RuleMissingToolCallID = Rule(msg.RuleMissingToolCallID)
	// RuleOrphanResult: a tool result that answers no earlier unanswered
	// call of its group ("tool result without a call").
	RuleOrphanResult = Rule(msg.RuleOrphanResult)
	// RuleUnansweredCall: a tool call left unanswered when another turn
	// starts ("unanswered tool call").
	RuleUnansweredCall = Rule(msg.RuleUnansweredCall)
	// RuleMissingCallID: an assistant tool call without an id ("tool call
	// without id").
	RuleMissingCallID = Rule(msg.RuleMissingCallID)
	// RuleEmptyAssistant: an assistant turn with nothing to show ("empty
	// assistant turn").
	RuleEmptyAssistant = Rule(msg.RuleEmptyAssistant)
	// RuleBothContents: a message setting both Content and MultiContent
	// ("both content fields set").
	RuleBothContents = Rule(msg.RuleBothContents)
)

// String returns the rule's short name.
func (r Rule) String() string { return msg.Rule(r).String() }

// ValidationError reports one broken rule: where it is and what is wrong. It
// unwraps to ErrInvalidHistory.
type ValidationError struct {
	Index  int    // index of the offending message in the slice checked
	Rule   Rule   // the rule broken
	Detail string // what exactly is wrong, for a person to read
}

// Error returns a line such as
// `message 17: tool result "call_3" answers no earlier unanswered call`.
func (e *ValidationError) Error() string {
	return (&msg.Problem{Index: e.Index, Rule: msg.Rule(e.Rule), Detail: e.Detail}).Error()
}

// Unwrap returns ErrInvalidHistory.
func (e *ValidationError) Unwrap() error { return ErrInvalidHistory }

// Validate reports whether msgs is a valid chat request, returning nil or the
// first problem (lowest index) as a *ValidationError. The rules: known roles
// only; every tool message has a tool_call_id and answers an unanswered call
// of the assistant turn it follows (results come after their calls, before
// any other turn); every tool call has an id and is answered before the next
// non-tool message, except the calls of the final group, which a host may
// still be running; no assistant turn is empty; no message sets both Content
// and MultiContent. Consecutive user or assistant turns are allowed: they are
// legal input, only compaction must not create them.
func Validate(msgs []Message) error {
	if ps := msg.Problems(msgs); len(ps) > 0 {
		return validationError(ps[0])
	}
	return nil
}

// Problems returns every rule msgs breaks, ordered by message index.
func Problems(msgs []Message) []*ValidationError {
	ps := msg.Problems(msgs)
	if ps == nil {
		return nil
	}
	out := make([]*ValidationError, len(ps))
	for i, p := range ps {
		out[i] = validationError(p)
	}
	return out
}

func validationError(p *msg.Problem) *ValidationError {
	return &ValidationError{Index: p.Index, Rule: Rule(p.Rule), Detail: p.Detail}
}

// RepairKind says what RepairToolPairs did to a message. Its String is a
// short description for a person ("dropped orphan tool result").
type RepairKind int

// The changes RepairToolPairs makes, as a [Repair]'s Kind. String gives
// the short description in parentheses.
const (
	// RepairDroppedResult: a tool result answering no call was removed
	// ("dropped orphan tool result").
	RepairDroppedResult = RepairKind(msg.RepairDroppedResult)
	// RepairRemovedCall: a tool call never answered (and not of the final,
	// pending group) was removed from its message ("removed unanswered
	// tool call").
	RepairRemovedCall = RepairKind(msg.RepairRemovedCall)
	// RepairPlaceholder: an assistant turn left with nothing to show got a
	// short placeholder text ("filled empty assistant turn").
	RepairPlaceholder = RepairKind(msg.RepairPlaceholder)
	// RepairMergedSeam: a removal left two user or two assistant turns
	// side by side and the second was merged into the first ("merged
	// turns a removal brought together").
	RepairMergedSeam = RepairKind(msg.RepairMergedSeam)
)

// String returns the kind's short description.
func (k RepairKind) String() string { return msg.RepairKind(k).String() }

// Repair records one change RepairToolPairs made.
type Repair struct {
	Index      int        // index of the message in the input slice
	Kind       RepairKind // what was done
	ToolCallID string     // the call or result concerned, if any
	Detail     string     // for a person to read
}

// RepairToolPairs returns a copy of msgs in which every tool result answers
// a call and every call is answered, with a list of what it changed. Results
// answering no unanswered call of their group are dropped; calls left
// unanswered when the next turn starts are removed from their message; calls
// of the final group are kept, since their results may still be coming. An
// assistant turn left with nothing to show gets a short placeholder, and two
// user or two assistant turns brought together by a removal are merged, so
// the repair never creates a seam compaction forbids. msgs is not modified.
// Problems that are not about pairing (unknown roles, both content fields)
// are left for Validate to report.
func RepairToolPairs(msgs []Message) ([]Message, []Repair) {
	out, rs := msg.RepairToolPairs(msgs)
	if rs == nil {
		return out, nil
	}
	repairs := make([]Repair, len(rs))
	for i, r := range rs {
		repairs[i] = Repair{Index: r.Index, Kind: RepairKind(r.Kind), ToolCallID: r.ToolCallID, Detail: r.Detail}
	}
	return out, repairs
}
