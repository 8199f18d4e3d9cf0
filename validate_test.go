package compact

import (
	"errors"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The public guards carry what internal/msg finds: a ValidationError names
// the message and the rule and unwraps to ErrInvalidHistory; a Repair names
// what was done. (internal/msg's tests check every rule and repair.)
func TestGuardsReportInThePackagesOwnTypes(t *testing.T) {
	bad := []Message{user("u"), result("c9", "x"), {Role: "function", Content: "x"}}
	err := Validate(bad)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrInvalidHistory))
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, 1, ve.Index)
	assert.Equal(t, RuleOrphanResult, ve.Rule)
	assert.Equal(t, "tool result without a call", ve.Rule.String())
	assert.Equal(t, `message 1: tool result "c9" answers no earlier unanswered call`, err.Error())

	ps := Problems(bad)
	require.Len(t, ps, 2)
	assert.Equal(t, []int{1, 2}, []int{ps[0].Index, ps[1].Index})
	assert.Equal(t, RuleUnknownRole, ps[1].Rule)
	assert.Nil(t, Problems([]Message{user("u")}))
	assert.NoError(t, Validate([]Message{user("u")}))

	fixed, repairs := RepairToolPairs(bad[:2])
	assert.Equal(t, []Message{user("u")}, fixed)
	require.Len(t, repairs, 1)
	assert.Equal(t, Repair{Index: 1, Kind: repairs[0].Kind, ToolCallID: "c9", Detail: repairs[0].Detail}, repairs[0])
	assert.Equal(t, RepairDroppedResult, repairs[0].Kind)
	assert.Equal(t, "dropped orphan tool result", repairs[0].Kind.String())
	_, none := RepairToolPairs([]Message{user("u")})
	assert.Nil(t, none)

	assert.Equal(t, "Rule(99)", Rule(99).String())
	assert.Equal(t, "RepairKind(0)", RepairKind(0).String())
}

// Every rule and repair has a name a host can compare with, and each
// history below breaks (or has repaired) exactly the one named.
func TestRulesAndRepairKindsHaveNames(t *testing.T) {
	call := func(ids ...string) Message {
		m := Message{Role: RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "bash"}})
		}
		return m
	}
	rules := []struct {
		rule Rule
		name string
		msgs []Message
	}{
		{RuleUnknownRole, "unknown role", []Message{user("u"), {Role: "function", Content: "x"}}},
		{RuleMissingToolCallID, "tool message without tool_call_id", []Message{user("u"), call("c1"), {Role: RoleTool, Content: "x"}}},
		{RuleOrphanResult, "tool result without a call", []Message{user("u"), result("c9", "x")}},
		{RuleUnansweredCall, "unanswered tool call", []Message{user("u"), call("c1"), user("next")}},
		{RuleMissingCallID, "tool call without id", []Message{user("u"), call("")}},
		{RuleEmptyAssistant, "empty assistant turn", []Message{user("u"), {Role: RoleAssistant}}},
		{RuleBothContents, "both content fields set", []Message{{Role: RoleUser, Content: "a", MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: "b"}}}}},
	}
	for _, tt := range rules {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.name, tt.rule.String())
			ps := Problems(tt.msgs)
			require.NotEmpty(t, ps)
			assert.Equal(t, tt.rule, ps[0].Rule)
		})
	}

	repairs := []struct {
		kind RepairKind
		name string
		msgs []Message
	}{
		{RepairDroppedResult, "dropped orphan tool result", []Message{user("u"), result("c9", "x")}},
		{RepairRemovedCall, "removed unanswered tool call", []Message{user("u"), {Role: RoleAssistant, Content: "a", ToolCalls: call("c1").ToolCalls}, user("next")}},
		{RepairPlaceholder, "filled empty assistant turn", []Message{user("u"), call("c1"), user("next")}},
		{RepairMergedSeam, "merged turns a removal brought together", []Message{user("u"), asst("a"), result("c9", "x"), asst("b")}},
	}
	for _, tt := range repairs {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.name, tt.kind.String())
			_, rs := RepairToolPairs(tt.msgs)
			var kinds []RepairKind
			for _, r := range rs {
				kinds = append(kinds, r.Kind)
			}
			assert.Contains(t, kinds, tt.kind)
		})
	}
}
