package genai

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdk "google.golang.org/genai"
)

func TestValidateNamesTheRuleAndWhere(t *testing.T) {
	contents := func(cs ...*sdk.Content) History { return History{Contents: cs} }
	tests := []struct {
		name  string
		h     History
		rule  Rule
		where string // the error text, "" for a valid history
	}{
		{"a plain exchange is valid", History{System: sdk.NewContentFromText("s", sdk.RoleUser),
			Contents: []*sdk.Content{user(text("q")), model(text("a"))}}, 0, ""},
		{"parallel calls answered by name in one content are valid", contents(
			user(text("q")), model(fcall("", "a"), fcall("", "b")), user(fresp("", "b", "1"), fresp("", "a", "2"), text("more")),
			model(text("ok"))), 0, ""},
		{"calls answered by id are valid", contents(user(text("q")), model(fcall("x", "a")), user(fresp("x", "a", "1"))), 0, ""},
		{"calls of the last content may wait", contents(user(text("q")), model(fcall("", "a"))), 0, ""},
		{"an empty role is the user's", contents(&sdk.Content{Parts: []*sdk.Part{text("q")}}, model(text("a"))), 0, ""},
		{"a signature-only part is valid", contents(user(text("q")), model(text("a"), &sdk.Part{ThoughtSignature: []byte("s")})), 0, ""},
		{"no contents", History{}, RuleNoContents, "genai: system instruction: the history has no contents"},
		{"a nil content", contents(nil), RuleNil, "genai: content 0: the content is nil"},
		{"a nil part", contents(user(text("q"), nil)), RuleNil, "genai: content 0, part 1: the part is nil"},
		{"an empty system part", History{System: &sdk.Content{Parts: []*sdk.Part{{}}}, Contents: []*sdk.Content{user(text("q"))}},
			RuleEmptyPart, "genai: system instruction, part 0: the part has no data"},
		{"a role the API does not have", contents(&sdk.Content{Role: "system", Parts: []*sdk.Part{text("s")}}),
			RuleRole, `genai: content 0: role "system" is not user or model`},
		{"a model content first", contents(model(text("a"))),
			RuleFirstContent, "genai: content 0: the first content is the model's, not the user's"},
		{"two user contents", contents(user(text("a")), &sdk.Content{Parts: []*sdk.Part{text("b")}}),
			RuleAlternation, "genai: content 1: two user contents in a row"},
		{"an empty content", contents(user(text("a")), model()),
			RuleEmptyContent, "genai: content 1: the model content has no parts"},
		{"an empty part", contents(user(text("a"), &sdk.Part{})),
			RuleEmptyPart, "genai: content 0, part 1: the part has no data"},
		{"a call in a user content", contents(user(fcall("", "f"))),
			RulePlacement, `genai: content 0, part 0: function call "f" in a user content`},
		{"a response in a model content", contents(user(text("q")), model(fresp("", "f", "x"))),
			RulePlacement, `genai: content 1, part 0: function response "f" in a model content`},
		{"a call without a name", contents(user(text("q")), model(fcall("c1", ""))),
			RuleFunctionName, `genai: content 1, part 0: function call "c1" has no name`},
		{"a response for no call", contents(user(text("q")), model(fcall("", "a")), user(fresp("", "b", "x"))),
			RuleOrphanResponse, `genai: content 2, part 0: function response "b" answers no open call of the content before`},
		{"a response with another call's id", contents(user(text("q")), model(fcall("x", "a")), user(fresp("y", "a", "1"))),
			RuleOrphanResponse, `genai: content 2, part 0: function response "a" (id "y") answers no open call of the content before`},
		{"a response given twice", contents(user(text("q")), model(fcall("", "a")), user(fresp("", "a", "1"), fresp("", "a", "2"))),
			RuleOrphanResponse, `genai: content 2, part 1: function response "a" answers no open call of the content before`},
		{"fewer responses than calls", contents(
			user(text("q")), model(fcall("", "a"), fcall("k", "b")), user(fresp("", "a", "1")), model(text("x"))),
			RuleUnanswered, `genai: content 2: function call "b" (id "k") of the content before is not answered here`},
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
	assert.Equal(t, "orphan function response", RuleOrphanResponse.String())
	assert.Equal(t, "Rule(99)", Rule(99).String())
}

func TestTheFixturesHaveTheAPIsShape(t *testing.T) {
	require.NoError(t, Validate(decode(t, everyPartJSON)))
	require.NoError(t, Validate(everyPart()))
}
