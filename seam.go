package compact

import (
	"fmt"
	"sort"
)

// Rule names one way a history can fail to be a valid chat request. Its
// String is a short name for a person ("tool result without a call"); the
// rules are those Validate documents.
type Rule int

// The rules Validate checks.
const (
	// ruleUnknownRole: a role other than system, developer, user, assistant
	// or tool.
	ruleUnknownRole Rule = iota + 1
	// ruleMissingToolCallID: a tool message without a tool_call_id.
	ruleMissingToolCallID
	// ruleOrphanResult: a tool result that answers no earlier unanswered
	// call of its group.
	ruleOrphanResult
	// ruleUnansweredCall: a tool call left unanswered when another turn
	// starts. Only the last group of calls in a history may wait.
	ruleUnansweredCall
	// ruleMissingCallID: an assistant tool call without an id.
	ruleMissingCallID
	// ruleEmptyAssistant: an assistant turn with no text, no image, no
	// refusal and no tool call.
	ruleEmptyAssistant
	// ruleBothContents: Content and MultiContent both set (go-openai
	// refuses to send such a message).
	ruleBothContents
)

var ruleNames = [...]string{
	ruleUnknownRole:       "unknown role",
	ruleMissingToolCallID: "tool message without tool_call_id",
	ruleOrphanResult:      "tool result without a call",
	ruleUnansweredCall:    "unanswered tool call",
	ruleMissingCallID:     "tool call without id",
	ruleEmptyAssistant:    "empty assistant turn",
	ruleBothContents:      "both content fields set",
}

// String returns the rule's short name.
func (r Rule) String() string {
	if r > 0 && int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("Rule(%d)", int(r))
}

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
	return fmt.Sprintf("message %d: %s", e.Index, e.Detail)
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
	if ps := Problems(msgs); len(ps) > 0 {
		return ps[0]
	}
	return nil
}

// Problems returns every rule msgs breaks, ordered by message index.
func Problems(msgs []Message) []*ValidationError {
	var ps []*ValidationError
	add := func(i int, r Rule, format string, args ...any) {
		ps = append(ps, &ValidationError{Index: i, Rule: r, Detail: fmt.Sprintf(format, args...)})
	}
	var g callGroup
	closeGroup := func() {
		for _, c := range g.unanswered() {
			add(g.index, ruleUnansweredCall, "tool call %q (%s) is never answered", c.id, c.name)
		}
		g = callGroup{calls: g.calls[:0]}
	}
	for i, m := range msgs {
		if m.Content != "" && m.MultiContent != nil {
			add(i, ruleBothContents, "%s message sets both Content and MultiContent", m.Role)
		}
		switch m.Role {
		case RoleSystem, roleDeveloper, RoleUser:
			closeGroup()
		case RoleAssistant:
			closeGroup()
			g = newCallGroup(i, m, g.calls[:0])
			for j, c := range m.ToolCalls {
				if c.ID == "" {
					add(i, ruleMissingCallID, "tool call %d (%s) has no id", j, c.Function.Name)
				}
			}
			if isBlank(m) {
				add(i, ruleEmptyAssistant, "assistant turn is empty")
			}
		case RoleTool:
			switch {
			case m.ToolCallID == "":
				add(i, ruleMissingToolCallID, "tool message has no tool_call_id")
			case !g.answer(m.ToolCallID):
				add(i, ruleOrphanResult, "tool result %q answers no earlier unanswered call", m.ToolCallID)
			}
		default:
			closeGroup()
			add(i, ruleUnknownRole, "unknown role %q", m.Role)
		}
	}
	// The calls still open here belong to the final group: they are pending,
	// not broken.
	sort.SliceStable(ps, func(a, b int) bool { return ps[a].Index < ps[b].Index })
	return ps
}

// callGroup tracks the tool calls of one assistant turn while its results
// arrive. A result answers the earliest unanswered call with its id, so an id
// reused by a later turn (after the first call was answered) pairs with the
// call nearest before it.
type callGroup struct {
	index int // index of the assistant message; -1 when no group is open
	calls []pendingCall
}

type pendingCall struct {
	id, name string
	answered bool
}

// newCallGroup opens the group of m's calls, in buf's storage (reusing a
// closed group's keeps a check of a long history from allocating per turn).
func newCallGroup(i int, m Message, buf []pendingCall) callGroup {
	g := callGroup{index: i, calls: buf}
	for _, c := range m.ToolCalls {
		g.calls = append(g.calls, pendingCall{id: c.ID, name: c.Function.Name})
	}
	return g
}

// answer marks the call id answers and reports whether there was one.
func (g *callGroup) answer(id string) bool {
	_, ok := g.answerCall(id)
	return ok
}

// answerCall marks the call id answers and returns it.
func (g *callGroup) answerCall(id string) (pendingCall, bool) {
	for k := range g.calls {
		if c := &g.calls[k]; !c.answered && c.id == id && id != "" {
			c.answered = true
			return *c, true
		}
	}
	return pendingCall{}, false
}

func (g *callGroup) unanswered() []pendingCall {
	var out []pendingCall
	for _, c := range g.calls {
		if !c.answered {
			out = append(out, c)
		}
	}
	return out
}

// RepairKind says what RepairToolPairs did to a message. Its String is a
// short description for a person ("dropped orphan tool result").
type RepairKind int

// The changes RepairToolPairs makes.
const (
	// repairDroppedResult: a tool result answering no call was removed.
	repairDroppedResult RepairKind = iota + 1
	// repairRemovedCall: a tool call that was never answered (and was not
	// part of the final, pending group) was removed from its message.
	repairRemovedCall
	// repairPlaceholder: an assistant turn left with nothing to show got a
	// short placeholder text.
	repairPlaceholder
	// repairMergedSeam: a removal left two user or two assistant turns side
	// by side; the second was merged into the first.
	repairMergedSeam
)

var repairNames = [...]string{
	repairDroppedResult: "dropped orphan tool result",
	repairRemovedCall:   "removed unanswered tool call",
	repairPlaceholder:   "filled empty assistant turn",
	repairMergedSeam:    "merged turns a removal brought together",
}

// String returns the kind's short description.
func (k RepairKind) String() string {
	if k > 0 && int(k) < len(repairNames) {
		return repairNames[k]
	}
	return fmt.Sprintf("RepairKind(%d)", int(k))
}

// Repair records one change RepairToolPairs made.
type Repair struct {
	Index      int        // index of the message in the input slice
	Kind       RepairKind // what was done
	ToolCallID string     // the call or result concerned, if any
	Detail     string     // for a person to read
}

// toolCallPlaceholder is the text given to an assistant turn whose only
// content was tool calls that had to be removed.
const toolCallPlaceholder = "[tool call removed: it was never answered]"

// emptyAssistantPlaceholder is the text given to an assistant turn that
// arrived with nothing in it.
const emptyAssistantPlaceholder = "[empty assistant turn]"

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
	keep := make([]bool, len(msgs))
	drop := make(map[[2]int]bool) // {message, call} indexes of calls to remove
	var repairs []Repair
	var g callGroup
	closeGroup := func() {
		for k, c := range g.calls {
			if !c.answered {
				drop[[2]int{g.index, k}] = true
				repairs = append(repairs, Repair{Index: g.index, Kind: repairRemovedCall, ToolCallID: c.id,
					Detail: fmt.Sprintf("tool call %q (%s) was never answered", c.id, c.name)})
			}
		}
		g = callGroup{index: -1}
	}
	g.index = -1
	for i, m := range msgs {
		keep[i] = true
		switch m.Role {
		case RoleAssistant:
			closeGroup()
			g = newCallGroup(i, m, nil)
		case RoleTool:
			if !g.answer(m.ToolCallID) {
				keep[i] = false
				repairs = append(repairs, Repair{Index: i, Kind: repairDroppedResult, ToolCallID: m.ToolCallID,
					Detail: fmt.Sprintf("tool result %q answered no call (%d bytes dropped)", m.ToolCallID, len(Text(m)))})
			}
		default:
			closeGroup()
		}
	}
	// Calls with no id can never be answered, even in the final group.
	for k, c := range g.calls {
		if !c.answered && c.id == "" {
			drop[[2]int{g.index, k}] = true
			repairs = append(repairs, Repair{Index: g.index, Kind: repairRemovedCall,
				Detail: fmt.Sprintf("tool call %d (%s) has no id", k, c.name)})
		}
	}
	if len(repairs) == 0 && !hasEmptyAssistant(msgs) {
		return Clone(msgs), nil
	}

	out := make([]Message, 0, len(msgs))
	removedBefore := false
	for i, m := range msgs {
		if !keep[i] {
			removedBefore = true
			continue
		}
		m = cloneMessage(m)
		if m.Role == RoleAssistant && len(m.ToolCalls) > 0 {
			calls := m.ToolCalls[:0:0]
			for k, c := range m.ToolCalls {
				if !drop[[2]int{i, k}] {
					calls = append(calls, c)
				}
			}
			if len(calls) == 0 {
				calls = nil
			}
			if len(calls) != len(m.ToolCalls) {
				m.ToolCalls = calls
				if isBlank(m) {
					m = replaceText(m, toolCallPlaceholder)
					repairs = append(repairs, Repair{Index: i, Kind: repairPlaceholder, Detail: "all its tool calls were removed"})
				}
			}
		} else if m.Role == RoleAssistant && isBlank(m) {
			m = replaceText(m, emptyAssistantPlaceholder)
			repairs = append(repairs, Repair{Index: i, Kind: repairPlaceholder, Detail: "assistant turn was empty"})
		}
		if removedBefore && len(out) > 0 && clashes(out[len(out)-1], m) {
			out[len(out)-1] = mergeTurns(out[len(out)-1], m)
			repairs = append(repairs, Repair{Index: i, Kind: repairMergedSeam,
				Detail: fmt.Sprintf("%s turn merged into the one before it", m.Role)})
		} else {
			out = append(out, m)
		}
		removedBefore = false
	}
	sort.SliceStable(repairs, func(a, b int) bool { return repairs[a].Index < repairs[b].Index })
	return out, repairs
}

func hasEmptyAssistant(msgs []Message) bool {
	for _, m := range msgs {
		if m.Role == RoleAssistant && isBlank(m) {
			return true
		}
	}
	return false
}

// turnSep separates the contents of two turns merged at a seam.
const turnSep = "\n\n"

// clashes reports whether b may not follow a: two user turns, or two
// assistant turns where the first makes no tool calls (one that does is
// followed by its results, so a clash there is a pairing problem instead).
func clashes(a, b Message) bool {
	switch {
	case a.Role == RoleUser && b.Role == RoleUser:
		return true
	case a.Role == RoleAssistant && b.Role == RoleAssistant:
		return len(a.ToolCalls) == 0 && a.FunctionCall == nil
	}
	return false
}

// mergeTurns returns a and b as one turn of a's role: a's content then b's
// (strings joined by turnSep, parts lists concatenated), b's tool calls, and
// every other text field of both. Nothing of either is lost.
func mergeTurns(a, b Message) Message {
	out := cloneMessage(a)
	joinContent(&out, a, b, turnSep)
	out.Refusal = joinNonEmpty(a.Refusal, b.Refusal, turnSep)
	out.ReasoningContent = joinNonEmpty(a.ReasoningContent, b.ReasoningContent, turnSep)
	if out.Name == "" {
		out.Name = b.Name
	}
	if b.ToolCalls != nil {
		out.ToolCalls = cloneMessage(b).ToolCalls
	}
	if b.FunctionCall != nil {
		fc := *b.FunctionCall
		out.FunctionCall = &fc
	}
	return out
}

func joinNonEmpty(a, b, sep string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + sep + b
}

// Join concatenates slices of messages into one new slice, guarding each
// seam between them: where the last message of one part and the first of the
// next are both user turns, or both assistant turns with no tool calls
// between, the second is merged into the first so roles keep alternating.
// Merging keeps everything: string contents are joined by a blank line,
// parts lists are concatenated, and a string meeting a parts list becomes a
// text part. Tool-tool seams are legal and left alone. Seams inside a part
// are not touched. The inputs are not modified.
func Join(parts ...[]Message) []Message {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]Message, 0, n)
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		first := 0
		if len(out) > 0 && clashes(out[len(out)-1], p[0]) {
			out[len(out)-1] = mergeTurns(out[len(out)-1], p[0])
			first = 1
		}
		for _, m := range p[first:] {
			out = append(out, cloneMessage(m))
		}
	}
	return out
}
