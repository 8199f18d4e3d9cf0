package anthropicv1

import (
	"errors"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateNamesTheRuleAndWhere(t *testing.T) {
	text := sdk.NewTextBlock
	user := func(b ...sdk.ContentBlockParamUnion) sdk.MessageParam { return sdk.NewUserMessage(b...) }
	asst := func(b ...sdk.ContentBlockParamUnion) sdk.MessageParam { return sdk.NewAssistantMessage(b...) }
	use := func(id string) sdk.ContentBlockParamUnion { return sdk.NewToolUseBlock(id, map[string]any{}, "f") }
	result := func(id string) sdk.ContentBlockParamUnion { return sdk.NewToolResultBlock(id, "ok", false) }
	tests := []struct {
		name  string
		h     History
		rule  Rule
		where string // the error text, "" for a valid history
	}{
		{"a plain exchange is valid", History{System: []sdk.TextBlockParam{{Text: "s"}},
			Messages: []sdk.MessageParam{user(text("q")), asst(text("a"))}}, 0, ""},
		{"parallel calls answered in one turn are valid", History{Messages: []sdk.MessageParam{
			user(text("q")), asst(text("two"), use("a"), use("b")), user(result("b"), result("a"), text("more")), asst(text("ok"))}}, 0, ""},
		{"calls of the last turn may wait", History{Messages: []sdk.MessageParam{user(text("q")), asst(use("a"))}}, 0, ""},
		{"no turns", History{}, RuleNoTurns, "anthropic: system prompt: the history has no turns"},
		{"a blank system block", History{System: []sdk.TextBlockParam{{Text: " "}}, Messages: []sdk.MessageParam{user(text("q"))}},
			RuleEmptyText, "anthropic: system prompt, block 0: text block is blank"},
		{"a system-role turn", History{Messages: []sdk.MessageParam{{Role: sdk.MessageParamRoleSystem, Content: []sdk.ContentBlockParamUnion{text("s")}}}},
			RuleRole, `anthropic: message 0: role "system" is not user or assistant`},
		{"an assistant turn first", History{Messages: []sdk.MessageParam{asst(text("a"))}},
			RuleFirstTurn, "anthropic: message 0: the first turn is the assistant's, not the user's"},
		{"two user turns", History{Messages: []sdk.MessageParam{user(text("a")), user(text("b"))}},
			RuleAlternation, "anthropic: message 1: two user turns in a row"},
		{"an empty turn", History{Messages: []sdk.MessageParam{user(text("a")), asst()}},
			RuleEmptyTurn, "anthropic: message 1: the assistant turn has no blocks"},
		{"a blank text block", History{Messages: []sdk.MessageParam{user(text("a"), text(""))}},
			RuleEmptyText, "anthropic: message 0, block 1: text block is blank"},
		{"a tool_use in a user turn", History{Messages: []sdk.MessageParam{user(use("a"))}},
			RulePlacement, "anthropic: message 0, block 0: tool_use block in a user turn"},
		{"thinking in a user turn", History{Messages: []sdk.MessageParam{user(text("q"), sdk.NewThinkingBlock("s", "t"))}},
			RulePlacement, "anthropic: message 0, block 1: thinking block in a user turn"},
		{"a tool_result in an assistant turn", History{Messages: []sdk.MessageParam{user(text("q")), asst(result("a"))}},
			RulePlacement, `anthropic: message 1, block 0: tool_result "a" in an assistant turn`},
		{"a result after text", History{Messages: []sdk.MessageParam{user(text("q")), asst(use("a")), user(text("x"), result("a"))}},
			RuleResultsFirst, `anthropic: message 2, block 1: tool_result "a" after a block that is not a tool result`},
		{"a result for no call", History{Messages: []sdk.MessageParam{user(text("q")), asst(use("a")), user(result("b"))}},
			RuleOrphanResult, `anthropic: message 2, block 0: tool_result "b" answers no open tool_use of the turn before`},
		{"a result given twice", History{Messages: []sdk.MessageParam{user(text("q")), asst(use("a")), user(result("a"), result("a"))}},
			RuleOrphanResult, `anthropic: message 2, block 1: tool_result "a" answers no open tool_use of the turn before`},
		{"a call left unanswered", History{Messages: []sdk.MessageParam{
			user(text("q")), asst(use("a"), use("b")), user(result("a")), asst(text("x"))}},
			RuleUnanswered, `anthropic: message 2: tool_use "b" of the turn before is not answered here`},
		{"an id used twice", History{Messages: []sdk.MessageParam{
			user(text("q")), asst(use("a")), user(result("a")), asst(use("a"))}},
			RuleDuplicateID, `anthropic: message 3, block 0: tool_use id "a" is used before`},
		{"an input that is not an object", History{Messages: []sdk.MessageParam{
			user(text("q")), asst(sdk.NewToolUseBlock("a", []int{1}, "f"))}},
			RuleToolInput, `anthropic: message 1, block 0: tool_use "a" input is not a JSON object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.h)
			if tt.where == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrShape))
			var se *ShapeError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.rule, se.Rule, "rule %s", se.Rule)
			assert.Equal(t, tt.where, err.Error())
		})
	}
}

func TestRuleNames(t *testing.T) {
	assert.Equal(t, "orphan tool result", RuleOrphanResult.String())
	assert.Equal(t, "Rule(99)", Rule(99).String())
}
