package anthropicv1

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
)

// ErrShape is what every error of Validate wraps: the history is not one
// the Messages API accepts.
var ErrShape = errors.New("anthropic: history breaks the Messages API's shape")

// Rule names one shape rule of the Messages API.
type Rule int

// The rules Validate checks.
const (
	// RuleNoTurns: the history has no turns.
	RuleNoTurns Rule = iota + 1
	// RuleRole: a turn's role is neither user nor assistant (the system
	// prompt goes in History.System).
	RuleRole
	// RuleFirstTurn: the first turn is not a user turn.
	RuleFirstTurn
	// RuleAlternation: two user or two assistant turns in a row.
	RuleAlternation
	// RuleEmptyTurn: a turn with no blocks.
	RuleEmptyTurn
	// RuleEmptyText: a text block with no visible text, in a turn or in
	// the system prompt.
	RuleEmptyText
	// RulePlacement: a block in a turn whose role may not hold it: tool_use
	// and thinking belong to assistant turns, tool_result to user turns.
	RulePlacement
	// RuleResultsFirst: a user turn with a tool_result after a block that
	// is not one.
	RuleResultsFirst
	// RuleOrphanResult: a tool_result that answers no tool_use of the
	// assistant turn right before it, or answers one twice.
	RuleOrphanResult
	// RuleUnanswered: a tool_use the next turn does not answer. The tool
	// calls of the last turn may still be running, so they may wait.
	RuleUnanswered
	// RuleDuplicateID: two tool_use blocks with one id.
	RuleDuplicateID
	// RuleToolInput: a tool_use input that is not a JSON object.
	RuleToolInput
	// RuleNullBlock: a block, or a block of a tool_result's content, with
	// no variant: the SDK encodes it as null.
	RuleNullBlock
)

var ruleNames = [...]string{
	RuleNoTurns:      "no turns",
	RuleRole:         "role",
	RuleFirstTurn:    "first turn",
	RuleAlternation:  "alternation",
	RuleEmptyTurn:    "empty turn",
	RuleEmptyText:    "empty text",
	RulePlacement:    "block placement",
	RuleResultsFirst: "tool results first",
	RuleOrphanResult: "orphan tool result",
	RuleUnanswered:   "unanswered tool use",
	RuleDuplicateID:  "duplicate tool use id",
	RuleToolInput:    "tool input",
	RuleNullBlock:    "null block",
}

// String returns the rule's short name.
func (r Rule) String() string {
	if r > 0 && int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("Rule(%d)", int(r))
}

// ShapeError reports one broken rule and where: Index is the turn in
// History.Messages (-1 for the system prompt), Block the block in it (-1
// for the turn as a whole). It unwraps to ErrShape.
type ShapeError struct {
	Index, Block int
	Rule         Rule
	Detail       string
}

// Error returns a line such as
// `anthropic: message 4, block 1: tool_result "toolu_2" answers no tool_use of the turn before`.
func (e *ShapeError) Error() string {
	where := fmt.Sprintf("message %d", e.Index)
	if e.Index < 0 {
		where = "system prompt"
	}
	if e.Block >= 0 {
		where += fmt.Sprintf(", block %d", e.Block)
	}
	return "anthropic: " + where + ": " + e.Detail
}

// Unwrap returns ErrShape.
func (e *ShapeError) Unwrap() error { return ErrShape }

// Validate reports whether h is a history the Messages API accepts, by the
// rules this package keeps on everything it restores: at least one turn;
// only user and assistant turns, alternating, the first a user turn; no
// empty turn and no blank text block; tool_use and thinking blocks in
// assistant turns, tool_result blocks in user turns; every tool_use
// answered by a tool_result at the start of the next turn, except those of
// the last turn, whose tools may still be running; every tool_result
// answering a tool_use of the turn right before it, once; tool_use ids
// unique; tool_use inputs JSON objects; no block that encodes as null (a
// union with no variant). It returns nil or the first problem as a
// *ShapeError.
func Validate(h History) error {
	fail := func(i, b int, r Rule, format string, args ...any) error {
		return &ShapeError{Index: i, Block: b, Rule: r, Detail: fmt.Sprintf(format, args...)}
	}
	for b, t := range h.System {
		if strings.TrimSpace(t.Text) == "" {
			return fail(-1, b, RuleEmptyText, "text block is blank")
		}
	}
	if len(h.Messages) == 0 {
		return fail(-1, -1, RuleNoTurns, "the history has no turns")
	}
	seen := map[string]bool{}
	var open map[string]bool // tool_use ids of the previous turn not answered yet
	var order []string       // the same ids, in block order
	for i, m := range h.Messages {
		if m.Role != sdk.MessageParamRoleUser && m.Role != sdk.MessageParamRoleAssistant {
			return fail(i, -1, RuleRole, "role %q is not user or assistant", m.Role)
		}
		if i == 0 && m.Role != sdk.MessageParamRoleUser {
			return fail(i, -1, RuleFirstTurn, "the first turn is the %s's, not the user's", m.Role)
		}
		if i > 0 && h.Messages[i-1].Role == m.Role {
			return fail(i, -1, RuleAlternation, "two %s turns in a row", m.Role)
		}
		if len(m.Content) == 0 {
			return fail(i, -1, RuleEmptyTurn, "the %s turn has no blocks", m.Role)
		}
		if b, k, found := nullBlock(m.Content); found {
			return fail(i, b, RuleNullBlock, "%s", nullText(k))
		}
		user := m.Role == sdk.MessageParamRoleUser
		results := user
		for b, block := range m.Content {
			switch {
			case block.OfText != nil && strings.TrimSpace(block.OfText.Text) == "":
				return fail(i, b, RuleEmptyText, "text block is blank")
			case block.OfToolResult != nil:
				id := block.OfToolResult.ToolUseID
				switch {
				case !user:
					return fail(i, b, RulePlacement, "tool_result %q in an assistant turn", id)
				case !results:
					return fail(i, b, RuleResultsFirst, "tool_result %q after a block that is not a tool result", id)
				case !open[id]:
					return fail(i, b, RuleOrphanResult, "tool_result %q answers no open tool_use of the turn before", id)
				}
				delete(open, id)
				continue
			case block.OfToolUse != nil || block.OfThinking != nil || block.OfRedactedThinking != nil:
				if user {
					return fail(i, b, RulePlacement, "%s block in a user turn", blockType(block))
				}
			}
			results = false
		}
		for _, id := range order {
			if open[id] {
				return fail(i, -1, RuleUnanswered, "tool_use %q of the turn before is not answered here", id)
			}
		}
		open, order = nil, nil
		if user {
			continue
		}
		open = map[string]bool{}
		for b, block := range m.Content {
			u := block.OfToolUse
			if u == nil {
				continue
			}
			if seen[u.ID] {
				return fail(i, b, RuleDuplicateID, "tool_use id %q is used before", u.ID)
			}
			seen[u.ID] = true
			open[u.ID] = true
			order = append(order, u.ID)
			if !isObject(u.Input) {
				return fail(i, b, RuleToolInput, "tool_use %q input is not a JSON object", u.ID)
			}
		}
	}
	return nil
}

// isObject reports whether a tool_use input encodes as a JSON object.
func isObject(input any) bool {
	s, err := inputJSON(input)
	if err != nil {
		return false
	}
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "{") && json.Valid([]byte(s))
}

// blockType is a block's type name.
func blockType(b sdk.ContentBlockParamUnion) string {
	if t := b.GetType(); t != nil {
		return *t
	}
	return "unknown"
}
