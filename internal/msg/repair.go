package msg

import (
	"fmt"
	"sort"

	"github.com/contextkit/compact/internal/english"
)

// RepairKind says what RepairToolPairs did to a message. Its String is a
// short description for a person ("dropped orphan tool result").
type RepairKind int

// The changes RepairToolPairs makes.
const (
	// RepairDroppedResult: a tool result answering no call was removed.
	RepairDroppedResult RepairKind = iota + 1
	// RepairRemovedCall: a tool call that was never answered (and was not
	// part of the final, pending group) was removed from its message.
	RepairRemovedCall
	// RepairPlaceholder: an assistant turn left with nothing to show got a
	// short placeholder text.
	RepairPlaceholder
	// RepairMergedSeam: a removal left two user or two assistant turns side
	// by side; the second was merged into the first.
	RepairMergedSeam
)

var repairNames = [...]string{
	RepairDroppedResult: "dropped orphan tool result",
	RepairRemovedCall:   "removed unanswered tool call",
	RepairPlaceholder:   "filled empty assistant turn",
	RepairMergedSeam:    "merged turns a removal brought together",
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
	var g CallGroup
	closeGroup := func() {
		for k, c := range g.Calls {
			if !c.Answered {
				drop[[2]int{g.Index, k}] = true
				repairs = append(repairs, Repair{Index: g.Index, Kind: RepairRemovedCall, ToolCallID: c.ID,
					Detail: fmt.Sprintf("tool call %q (%s) was never answered", c.ID, c.Name)})
			}
		}
		g = CallGroup{Index: -1}
	}
	g.Index = -1
	for i, m := range msgs {
		keep[i] = true
		switch m.Role {
		case RoleAssistant:
			closeGroup()
			g = NewCallGroup(i, m, nil)
		case RoleTool:
			if !g.Answer(m.ToolCallID) {
				keep[i] = false
				repairs = append(repairs, Repair{Index: i, Kind: RepairDroppedResult, ToolCallID: m.ToolCallID,
					Detail: fmt.Sprintf("tool result %q answered no call (%d %s dropped)", m.ToolCallID, len(Text(m)), english.Noun(len(Text(m)), "byte"))})
			}
		default:
			closeGroup()
		}
	}
	// Calls with no id can never be answered, even in the final group.
	for k, c := range g.Calls {
		if !c.Answered && c.ID == "" {
			drop[[2]int{g.Index, k}] = true
			repairs = append(repairs, Repair{Index: g.Index, Kind: RepairRemovedCall,
				Detail: fmt.Sprintf("tool call %d (%s) has no id", k, c.Name)})
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
		m = CloneMessage(m)
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
				if IsBlank(m) {
					m = ReplaceText(m, toolCallPlaceholder)
					repairs = append(repairs, Repair{Index: i, Kind: RepairPlaceholder, Detail: "all its tool calls were removed"})
				}
			}
		} else if m.Role == RoleAssistant && IsBlank(m) {
			m = ReplaceText(m, emptyAssistantPlaceholder)
			repairs = append(repairs, Repair{Index: i, Kind: RepairPlaceholder, Detail: "assistant turn was empty"})
		}
		if removedBefore && len(out) > 0 && Clashes(out[len(out)-1], m) {
			out[len(out)-1] = MergeTurns(out[len(out)-1], m)
			repairs = append(repairs, Repair{Index: i, Kind: RepairMergedSeam,
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
		if m.Role == RoleAssistant && IsBlank(m) {
			return true
		}
	}
	return false
}
