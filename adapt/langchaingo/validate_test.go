package langchaingo

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

func TestValidateNamesTheRuleAndWhere(t *testing.T) {
	human := func(s string) llms.MessageContent { return msg(llms.ChatMessageTypeHuman, llms.TextPart(s)) }
	ai := func(p ...llms.ContentPart) llms.MessageContent { return msg(llms.ChatMessageTypeAI, p...) }
	tool := func(p ...llms.ContentPart) llms.MessageContent { return msg(llms.ChatMessageTypeTool, p...) }
	tests := []struct {
		name  string
		msgs  []llms.MessageContent
		rule  Rule
		where string // the error text, "" for a valid history
	}{
		{"the fixture is valid", decode(t, everyPartJSON), 0, ""},
		{"pointer parts are valid", everyPart(), 0, ""},
		{"parallel calls answered in one message each, in any order, are valid", []llms.MessageContent{
			human("q"), ai(call("a", "f", "{}"), call("b", "g", "{}")), tool(response("b", "g", "1")), tool(response("a", "f", "2")), human("next")}, 0, ""},
		{"calls of the last AI message may wait", []llms.MessageContent{human("q"), ai(call("a", "f", "{}"))}, 0, ""},
		{"a role langchaingo does not define", []llms.MessageContent{msg("critic", llms.TextPart("x"))},
			RuleRole, `langchaingo: message 0: role "critic" is not one langchaingo defines`},
		{"an empty message", []llms.MessageContent{human("q"), msg(llms.ChatMessageTypeAI)},
			RuleEmpty, "langchaingo: message 1: the ai message has no parts"},
		{"a nil part", []llms.MessageContent{msg(llms.ChatMessageTypeHuman, nil)},
			RuleNilPart, "langchaingo: message 0, part 0: the part is nil"},
		{"a call in a human message", []llms.MessageContent{msg(llms.ChatMessageTypeHuman, call("a", "f", "{}"))},
			RulePlacement, `langchaingo: message 0, part 0: tool call "a" in a message of role "human"`},
		{"a response in an AI message", []llms.MessageContent{human("q"), ai(response("a", "f", "x"))},
			RulePlacement, `langchaingo: message 1, part 0: tool response "a" in a message of role "ai"`},
		{"a call without a function", []llms.MessageContent{human("q"), ai(llms.ToolCall{ID: "a"})},
			RuleCall, `langchaingo: message 1, part 0: tool call "a" has no id, function or function name`},
		{"text in a tool message", []llms.MessageContent{human("q"), ai(call("a", "f", "{}")), tool(response("a", "f", "1"), llms.TextPart("x"))},
			RuleToolMessage, "langchaingo: message 2, part 1: a llms.TextContent in a tool message, which holds tool responses only"},
		{"a response for no call", []llms.MessageContent{human("q"), ai(call("a", "f", "{}")), tool(response("b", "f", "1"))},
			RuleOrphanResponse, `langchaingo: message 2, part 0: tool response "b" answers no unanswered call of the AI message before`},
		{"a response after another message", []llms.MessageContent{human("q"), ai(call("a", "f", "{}")), tool(response("a", "f", "1")),
			human("more"), tool(response("a", "f", "again"))},
			RuleOrphanResponse, `langchaingo: message 4, part 0: tool response "a" answers no unanswered call of the AI message before`},
		{"a call left unanswered", []llms.MessageContent{human("q"), ai(call("a", "f", "{}"), call("b", "f", "{}")), tool(response("a", "f", "1")), human("x")},
			RuleUnanswered, `langchaingo: message 3: tool call "b" of message 1 is not answered before this message`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.msgs)
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
	assert.Equal(t, "orphan tool response", RuleOrphanResponse.String())
	assert.Equal(t, "Rule(99)", Rule(99).String())
}
