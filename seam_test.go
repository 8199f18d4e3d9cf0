package compact

import (
	"errors"
	"reflect"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name      string
		msgs      []Message
		wantIndex int // -1: valid
		wantRule  Rule
		wantError string
	}{
		{"empty history is valid", nil, -1, 0, ""},
		{"a plain exchange", []Message{sys("s"), user("u"), asst("a")}, -1, 0, ""},
		{"calls answered in order", []Message{user("u"), call("", "c1", "bash", "c2", "read"), result("c1", "x"), result("c2", "y"), asst("done")}, -1, 0, ""},
		{"calls answered out of order", []Message{user("u"), call("", "c1", "bash", "c2", "read"), result("c2", "y"), result("c1", "x")}, -1, 0, ""},
		{"an id reused after its first call was answered", []Message{user("u"), call("", "c1", "bash"), result("c1", "x"), call("", "c1", "bash"), result("c1", "y"), asst("ok")}, -1, 0, ""},
		{"a pending group at the very end", []Message{user("u"), call("", "c1", "bash", "c2", "read")}, -1, 0, ""},
		{"a partly answered group at the very end", []Message{user("u"), call("", "c1", "bash", "c2", "read"), result("c1", "x")}, -1, 0, ""},
		{"consecutive user turns are legal input", []Message{user("a"), user("b")}, -1, 0, ""},
		{"developer role", []Message{{Role: roleDeveloper, Content: "d"}, user("u")}, -1, 0, ""},

		{"unknown role", []Message{user("u"), {Role: "function", Content: "x"}}, 1, ruleUnknownRole, `message 1: unknown role "function"`},
		{"tool message without id", []Message{user("u"), call("", "c1", "bash"), {Role: RoleTool, Content: "x"}}, 2, ruleMissingToolCallID, "message 2: tool message has no tool_call_id"},
		{"result with no call", []Message{user("u"), result("c9", "x")}, 1, ruleOrphanResult, `message 1: tool result "c9" answers no earlier unanswered call`},
		{"result answered twice", []Message{call("", "c1", "bash"), result("c1", "x"), result("c1", "y")}, 2, ruleOrphanResult, `message 2: tool result "c1" answers no earlier unanswered call`},
		{"result after another turn started", []Message{call("", "c1", "bash"), user("wait"), result("c1", "x")}, 0, ruleUnansweredCall, `message 0: tool call "c1" (bash) is never answered`},
		{"unanswered call before a later turn", []Message{user("u"), call("", "c1", "bash", "c2", "read"), result("c1", "x"), asst("done")}, 1, ruleUnansweredCall, `message 1: tool call "c2" (read) is never answered`},
		{"empty assistant turn", []Message{user("u"), {Role: RoleAssistant}}, 1, ruleEmptyAssistant, "message 1: assistant turn is empty"},
		{"whitespace-only assistant turn", []Message{user("u"), asst(" \n")}, 1, ruleEmptyAssistant, "message 1: assistant turn is empty"},
		{"both content fields", []Message{{Role: RoleUser, Content: "a", MultiContent: partsMsg(RoleUser, "b").MultiContent}}, 0, ruleBothContents, "message 0: user message sets both Content and MultiContent"},
		{"call without id", []Message{user("u"), {Role: RoleAssistant, ToolCalls: []openai.ToolCall{{Function: openai.FunctionCall{Name: "bash"}}}}}, 1, ruleMissingCallID, "message 1: tool call 0 (bash) has no id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.msgs)
			if tt.wantIndex < 0 {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidHistory), "errors.Is(err, ErrInvalidHistory)")
			var ve *ValidationError
			require.True(t, errors.As(err, &ve))
			assert.Equal(t, tt.wantIndex, ve.Index)
			assert.Equal(t, tt.wantRule, ve.Rule)
			assert.Equal(t, tt.wantError, err.Error())
		})
	}
}

func TestProblemsListsEveryRuleInIndexOrder(t *testing.T) {
	msgs := []Message{
		call("", "c1", "bash"), // never answered: found when message 2 starts
		result("c2", "stray"),
		user("u"),
		{Role: "bot"},
	}
	ps := Problems(msgs)
	require.Len(t, ps, 3)
	assert.Equal(t, []int{0, 1, 3}, []int{ps[0].Index, ps[1].Index, ps[2].Index})
	assert.Equal(t, []Rule{ruleUnansweredCall, ruleOrphanResult, ruleUnknownRole}, []Rule{ps[0].Rule, ps[1].Rule, ps[2].Rule})
}

func TestRuleAndRepairKindNames(t *testing.T) {
	assert.Equal(t, "unanswered tool call", ruleUnansweredCall.String())
	assert.Equal(t, "Rule(99)", Rule(99).String())
	assert.Equal(t, "dropped orphan tool result", repairDroppedResult.String())
	assert.Equal(t, "RepairKind(0)", RepairKind(0).String())
}

func TestRepairToolPairs(t *testing.T) {
	tests := []struct {
		name      string
		in        []Message
		want      []Message
		wantKinds []RepairKind
	}{
		{
			name: "valid history comes back equal",
			in:   []Message{sys("s"), user("u"), call("", "c1", "bash"), result("c1", "x"), asst("a")},
			want: []Message{sys("s"), user("u"), call("", "c1", "bash"), result("c1", "x"), asst("a")},
		},
		{
			name:      "orphan result dropped",
			in:        []Message{user("u"), asst("a"), result("c9", "stray"), user("v")},
			want:      []Message{user("u"), asst("a"), user("v")},
			wantKinds: []RepairKind{repairDroppedResult},
		},
		{
			name:      "dropping a result merges the turns it separated",
			in:        []Message{user("u"), asst("a"), result("c9", "stray"), asst("b")},
			want:      []Message{user("u"), asst("a\n\nb")},
			wantKinds: []RepairKind{repairDroppedResult, repairMergedSeam},
		},
		{
			name:      "unanswered call removed, text kept",
			in:        []Message{user("u"), call("let me look", "c1", "bash"), user("never mind")},
			want:      []Message{user("u"), asst("let me look"), user("never mind")},
			wantKinds: []RepairKind{repairRemovedCall},
		},
		{
			name:      "assistant left empty gets a placeholder",
			in:        []Message{user("u"), call("", "c1", "bash"), user("never mind")},
			want:      []Message{user("u"), asst(toolCallPlaceholder), user("never mind")},
			wantKinds: []RepairKind{repairRemovedCall, repairPlaceholder},
		},
		{
			name:      "one of two calls unanswered",
			in:        []Message{user("u"), call("", "c1", "bash", "c2", "read"), result("c2", "y"), asst("done")},
			want:      []Message{user("u"), call("", "c2", "read"), result("c2", "y"), asst("done")},
			wantKinds: []RepairKind{repairRemovedCall},
		},
		{
			name: "pending final group kept",
			in:   []Message{user("u"), call("", "c1", "bash", "c2", "read"), result("c1", "x")},
			want: []Message{user("u"), call("", "c1", "bash", "c2", "read"), result("c1", "x")},
		},
		{
			name: "reused id pairs with the nearest earlier unanswered call",
			in: []Message{user("u"), call("", "c1", "bash"), result("c1", "first"),
				call("", "c1", "bash"), result("c1", "second"), result("c1", "third"), asst("ok")},
			want: []Message{user("u"), call("", "c1", "bash"), result("c1", "first"),
				call("", "c1", "bash"), result("c1", "second"), asst("ok")},
			wantKinds: []RepairKind{repairDroppedResult},
		},
		{
			name:      "result separated from its call by a user turn",
			in:        []Message{call("", "c1", "bash"), user("wait"), result("c1", "x"), asst("a")},
			want:      []Message{asst(toolCallPlaceholder), user("wait"), asst("a")},
			wantKinds: []RepairKind{repairRemovedCall, repairPlaceholder, repairDroppedResult},
		},
		{
			name:      "empty assistant turn filled",
			in:        []Message{user("u"), {Role: RoleAssistant}},
			want:      []Message{user("u"), asst(emptyAssistantPlaceholder)},
			wantKinds: []RepairKind{repairPlaceholder},
		},
		{
			name:      "a call without id is removed even at the end",
			in:        []Message{user("u"), {Role: RoleAssistant, Content: "x", ToolCalls: []openai.ToolCall{{Function: openai.FunctionCall{Name: "bash"}}}}},
			want:      []Message{user("u"), asst("x")},
			wantKinds: []RepairKind{repairRemovedCall},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := Clone(tt.in)
			got, repairs := RepairToolPairs(tt.in)
			assert.Equal(t, tt.want, got)
			var kinds []RepairKind
			for _, r := range repairs {
				kinds = append(kinds, r.Kind)
			}
			assert.Equal(t, tt.wantKinds, kinds)
			assert.NoError(t, Validate(got))
			assert.True(t, reflect.DeepEqual(before, tt.in), "the input is not modified")
		})
	}
}

func TestJoin(t *testing.T) {
	img := "img:https://x.test/i.png"
	tests := []struct {
		name  string
		parts [][]Message
		want  []Message
	}{
		{"no seam", [][]Message{{sys("s"), user("u")}, {asst("a")}}, []Message{sys("s"), user("u"), asst("a")}},
		{"user-user merged", [][]Message{{user("a")}, {user("b"), asst("c")}}, []Message{user("a\n\nb"), asst("c")}},
		{"assistant-assistant merged", [][]Message{{user("u"), asst("a")}, {asst("b")}}, []Message{user("u"), asst("a\n\nb")}},
		{"assistant text then assistant calls merged, calls kept", [][]Message{{asst("a")}, {call("b", "c1", "bash")}},
			[]Message{call("a\n\nb", "c1", "bash")}},
		{"assistant calls then assistant: not a seam to merge", [][]Message{{call("", "c1", "bash")}, {asst("b")}},
			[]Message{call("", "c1", "bash"), asst("b")}},
		{"tool-tool is legal", [][]Message{{call("", "c1", "bash", "c2", "read"), result("c1", "x")}, {result("c2", "y")}},
			[]Message{call("", "c1", "bash", "c2", "read"), result("c1", "x"), result("c2", "y")}},
		{"string meets parts", [][]Message{{user("a")}, {partsMsg(RoleUser, "b", img)}}, []Message{partsMsg(RoleUser, "a", "b", img)}},
		{"parts meet parts", [][]Message{{partsMsg(RoleUser, img)}, {partsMsg(RoleUser, "b")}}, []Message{partsMsg(RoleUser, img, "b")}},
		{"empty parts skipped", [][]Message{{user("a")}, nil, {}, {user("b")}}, []Message{user("a\n\nb")}},
		{"seams inside a part untouched", [][]Message{{user("a"), user("b")}}, []Message{user("a"), user("b")}},
		{"system-system left alone", [][]Message{{sys("a")}, {sys("b")}}, []Message{sys("a"), sys("b")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := make([][]Message, len(tt.parts))
			for i, p := range tt.parts {
				before[i] = Clone(p)
			}
			got := Join(tt.parts...)
			assert.Equal(t, tt.want, got)
			assert.True(t, reflect.DeepEqual(before, tt.parts), "the inputs are not modified")
		})
	}
}

func TestMergeTurnsKeepsEveryField(t *testing.T) {
	a := asst("a")
	a.ReasoningContent = "thought a"
	a.Refusal = "no a"
	b := call("b", "c1", "bash")
	b.ReasoningContent = "thought b"
	b.Name = "helper"
	got := mergeTurns(a, b)
	assert.Equal(t, "a\n\nb", got.Content)
	assert.Equal(t, "thought a\n\nthought b", got.ReasoningContent)
	assert.Equal(t, "no a", got.Refusal)
	assert.Equal(t, "helper", got.Name)
	assert.Equal(t, b.ToolCalls, got.ToolCalls)
	got.ToolCalls[0].ID = "changed"
	assert.Equal(t, "c1", b.ToolCalls[0].ID, "the merged turn shares nothing with its inputs")
}

// Every transcript we ship and every real one beside the checkout is valid
// as it stands; repairing it changes nothing.
func TestTranscriptsValidateAndRepairIsANoOp(t *testing.T) {
	all := allTranscripts(t)
	for _, name := range sortedNames(all) {
		msgs := all[name]
		t.Run(name, func(t *testing.T) {
			require.NoError(t, Validate(msgs))
			got, repairs := RepairToolPairs(msgs)
			assert.Empty(t, repairs)
			assert.True(t, reflect.DeepEqual(msgs, got))
		})
	}
}

// Real transcripts reuse tool-call ids once the earlier call is answered,
// and several end on a call that has no result yet. Both must validate, and
// a repair of the same history cut short must keep the pending group.
func TestRealTranscriptShapes(t *testing.T) {
	reused := sharedTranscripts(t)["taubench__airline_task2_trial1.json"]
	pending := sharedTranscripts(t)["openhands__ponylang__ponyc-4595.json"]
	own := loadTranscript(t, ownTranscriptDir+"/coding_session.json")

	cases := map[string][]Message{"own coding session (reused id, pending end)": own}
	if reused != nil {
		cases["tau-bench reused ids"] = reused
	}
	if pending != nil {
		cases["openhands pending final call"] = pending
	}
	for name, msgs := range cases {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, Validate(msgs))
			// Cut each history just after every assistant turn with calls: the
			// cut ends on a pending group, which must stay.
			for i, m := range msgs {
				if len(m.ToolCalls) == 0 {
					continue
				}
				cut := msgs[:i+1]
				require.NoError(t, Validate(cut), "cut at %d", i)
				got, repairs := RepairToolPairs(cut)
				assert.Empty(t, repairs, "cut at %d", i)
				assert.Equal(t, m.ToolCalls, got[len(got)-1].ToolCalls)
			}
		})
	}
	if reused == nil || pending == nil {
		t.Log("shared transcripts absent: checked our own only")
	}
}
