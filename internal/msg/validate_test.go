package msg_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/contextkit/compact/internal/msg"

	"github.com/contextkit/compact/internal/msgtest"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name      string
		msgs      []msg.Message
		wantIndex int // -1: valid
		wantRule  msg.Rule
		wantError string
	}{
		{"empty history is valid", nil, -1, 0, ""},
		{"a plain exchange", []msg.Message{msgtest.Sys("s"), msgtest.User("u"), msgtest.Asst("a")}, -1, 0, ""},
		{"calls answered in order", []msg.Message{msgtest.User("u"), msgtest.Call("", "c1", "bash", "c2", "read"), msgtest.Result("c1", "x"), msgtest.Result("c2", "y"), msgtest.Asst("done")}, -1, 0, ""},
		{"calls answered out of order", []msg.Message{msgtest.User("u"), msgtest.Call("", "c1", "bash", "c2", "read"), msgtest.Result("c2", "y"), msgtest.Result("c1", "x")}, -1, 0, ""},
		{"an id reused after its first call was answered", []msg.Message{msgtest.User("u"), msgtest.Call("", "c1", "bash"), msgtest.Result("c1", "x"), msgtest.Call("", "c1", "bash"), msgtest.Result("c1", "y"), msgtest.Asst("ok")}, -1, 0, ""},
		{"a pending group at the very end", []msg.Message{msgtest.User("u"), msgtest.Call("", "c1", "bash", "c2", "read")}, -1, 0, ""},
		{"a partly answered group at the very end", []msg.Message{msgtest.User("u"), msgtest.Call("", "c1", "bash", "c2", "read"), msgtest.Result("c1", "x")}, -1, 0, ""},
		{"consecutive user turns are legal input", []msg.Message{msgtest.User("a"), msgtest.User("b")}, -1, 0, ""},
		{"developer role", []msg.Message{{Role: msg.RoleDeveloper, Content: "d"}, msgtest.User("u")}, -1, 0, ""},

		{"unknown role", []msg.Message{msgtest.User("u"), {Role: "function", Content: "x"}}, 1, msg.RuleUnknownRole, `message 1: unknown role "function"`},
		{"tool message without id", []msg.Message{msgtest.User("u"), msgtest.Call("", "c1", "bash"), {Role: msg.RoleTool, Content: "x"}}, 2, msg.RuleMissingToolCallID, "message 2: tool message has no tool_call_id"},
		{"result with no call", []msg.Message{msgtest.User("u"), msgtest.Result("c9", "x")}, 1, msg.RuleOrphanResult, `message 1: tool result "c9" answers no earlier unanswered call`},
		{"result answered twice", []msg.Message{msgtest.Call("", "c1", "bash"), msgtest.Result("c1", "x"), msgtest.Result("c1", "y")}, 2, msg.RuleOrphanResult, `message 2: tool result "c1" answers no earlier unanswered call`},
		{"result after another turn started", []msg.Message{msgtest.Call("", "c1", "bash"), msgtest.User("wait"), msgtest.Result("c1", "x")}, 0, msg.RuleUnansweredCall, `message 0: tool call "c1" (bash) is never answered`},
		{"unanswered call before a later turn", []msg.Message{msgtest.User("u"), msgtest.Call("", "c1", "bash", "c2", "read"), msgtest.Result("c1", "x"), msgtest.Asst("done")}, 1, msg.RuleUnansweredCall, `message 1: tool call "c2" (read) is never answered`},
		{"empty assistant turn", []msg.Message{msgtest.User("u"), {Role: msg.RoleAssistant}}, 1, msg.RuleEmptyAssistant, "message 1: assistant turn is empty"},
		{"whitespace-only assistant turn", []msg.Message{msgtest.User("u"), msgtest.Asst(" \n")}, 1, msg.RuleEmptyAssistant, "message 1: assistant turn is empty"},
		{"both content fields", []msg.Message{{Role: msg.RoleUser, Content: "a", MultiContent: msgtest.Parts(msg.RoleUser, "b").MultiContent}}, 0, msg.RuleBothContents, "message 0: user message sets both Content and MultiContent"},
		{"call without id", []msg.Message{msgtest.User("u"), {Role: msg.RoleAssistant, ToolCalls: []openai.ToolCall{{Function: openai.FunctionCall{Name: "bash"}}}}}, 1, msg.RuleMissingCallID, "message 1: tool call 0 (bash) has no id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := msg.Validate(tt.msgs)
			if tt.wantIndex < 0 {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			var ve *msg.Problem
			require.True(t, errors.As(err, &ve))
			assert.Equal(t, tt.wantIndex, ve.Index)
			assert.Equal(t, tt.wantRule, ve.Rule)
			assert.Equal(t, tt.wantError, err.Error())
		})
	}
}

func TestProblemsListsEveryRuleInIndexOrder(t *testing.T) {
	msgs := []msg.Message{
		msgtest.Call("", "c1", "bash"), // never answered: found when message 2 starts
		msgtest.Result("c2", "stray"),
		msgtest.User("u"),
		{Role: "bot"},
	}
	ps := msg.Problems(msgs)
	require.Len(t, ps, 3)
	assert.Equal(t, []int{0, 1, 3}, []int{ps[0].Index, ps[1].Index, ps[2].Index})
	assert.Equal(t, []msg.Rule{msg.RuleUnansweredCall, msg.RuleOrphanResult, msg.RuleUnknownRole}, []msg.Rule{ps[0].Rule, ps[1].Rule, ps[2].Rule})
}

func TestRuleAndRepairKindNames(t *testing.T) {
	assert.Equal(t, "unanswered tool call", msg.RuleUnansweredCall.String())
	assert.Equal(t, "Rule(99)", msg.Rule(99).String())
	assert.Equal(t, "dropped orphan tool result", msg.RepairDroppedResult.String())
	assert.Equal(t, "RepairKind(0)", msg.RepairKind(0).String())
}

func TestRepairToolPairs(t *testing.T) {
	tests := []struct {
		name      string
		in        []msg.Message
		want      []msg.Message
		wantKinds []msg.RepairKind
	}{
		{
			name: "valid history comes back equal",
			in:   []msg.Message{msgtest.Sys("s"), msgtest.User("u"), msgtest.Call("", "c1", "bash"), msgtest.Result("c1", "x"), msgtest.Asst("a")},
			want: []msg.Message{msgtest.Sys("s"), msgtest.User("u"), msgtest.Call("", "c1", "bash"), msgtest.Result("c1", "x"), msgtest.Asst("a")},
		},
		{
			name:      "orphan result dropped",
			in:        []msg.Message{msgtest.User("u"), msgtest.Asst("a"), msgtest.Result("c9", "stray"), msgtest.User("v")},
			want:      []msg.Message{msgtest.User("u"), msgtest.Asst("a"), msgtest.User("v")},
			wantKinds: []msg.RepairKind{msg.RepairDroppedResult},
		},
		{
			name:      "dropping a result merges the turns it separated",
			in:        []msg.Message{msgtest.User("u"), msgtest.Asst("a"), msgtest.Result("c9", "stray"), msgtest.Asst("b")},
			want:      []msg.Message{msgtest.User("u"), msgtest.Asst("a\n\nb")},
			wantKinds: []msg.RepairKind{msg.RepairDroppedResult, msg.RepairMergedSeam},
		},
		{
			name:      "unanswered call removed, text kept",
			in:        []msg.Message{msgtest.User("u"), msgtest.Call("let me look", "c1", "bash"), msgtest.User("never mind")},
			want:      []msg.Message{msgtest.User("u"), msgtest.Asst("let me look"), msgtest.User("never mind")},
			wantKinds: []msg.RepairKind{msg.RepairRemovedCall},
		},
		{
			name:      "assistant left empty gets a placeholder",
			in:        []msg.Message{msgtest.User("u"), msgtest.Call("", "c1", "bash"), msgtest.User("never mind")},
			want:      []msg.Message{msgtest.User("u"), msgtest.Asst("[tool call removed: it was never answered]"), msgtest.User("never mind")},
			wantKinds: []msg.RepairKind{msg.RepairRemovedCall, msg.RepairPlaceholder},
		},
		{
			name:      "one of two calls unanswered",
			in:        []msg.Message{msgtest.User("u"), msgtest.Call("", "c1", "bash", "c2", "read"), msgtest.Result("c2", "y"), msgtest.Asst("done")},
			want:      []msg.Message{msgtest.User("u"), msgtest.Call("", "c2", "read"), msgtest.Result("c2", "y"), msgtest.Asst("done")},
			wantKinds: []msg.RepairKind{msg.RepairRemovedCall},
		},
		{
			name: "pending final group kept",
			in:   []msg.Message{msgtest.User("u"), msgtest.Call("", "c1", "bash", "c2", "read"), msgtest.Result("c1", "x")},
			want: []msg.Message{msgtest.User("u"), msgtest.Call("", "c1", "bash", "c2", "read"), msgtest.Result("c1", "x")},
		},
		{
			name: "reused id pairs with the nearest earlier unanswered call",
			in: []msg.Message{msgtest.User("u"), msgtest.Call("", "c1", "bash"), msgtest.Result("c1", "first"),
				msgtest.Call("", "c1", "bash"), msgtest.Result("c1", "second"), msgtest.Result("c1", "third"), msgtest.Asst("ok")},
			want: []msg.Message{msgtest.User("u"), msgtest.Call("", "c1", "bash"), msgtest.Result("c1", "first"),
				msgtest.Call("", "c1", "bash"), msgtest.Result("c1", "second"), msgtest.Asst("ok")},
			wantKinds: []msg.RepairKind{msg.RepairDroppedResult},
		},
		{
			name:      "result separated from its call by a user turn",
			in:        []msg.Message{msgtest.Call("", "c1", "bash"), msgtest.User("wait"), msgtest.Result("c1", "x"), msgtest.Asst("a")},
			want:      []msg.Message{msgtest.Asst("[tool call removed: it was never answered]"), msgtest.User("wait"), msgtest.Asst("a")},
			wantKinds: []msg.RepairKind{msg.RepairRemovedCall, msg.RepairPlaceholder, msg.RepairDroppedResult},
		},
		{
			name:      "empty assistant turn filled",
			in:        []msg.Message{msgtest.User("u"), {Role: msg.RoleAssistant}},
			want:      []msg.Message{msgtest.User("u"), msgtest.Asst("[empty assistant turn]")},
			wantKinds: []msg.RepairKind{msg.RepairPlaceholder},
		},
		{
			name:      "a call without id is removed even at the end",
			in:        []msg.Message{msgtest.User("u"), {Role: msg.RoleAssistant, Content: "x", ToolCalls: []openai.ToolCall{{Function: openai.FunctionCall{Name: "bash"}}}}},
			want:      []msg.Message{msgtest.User("u"), msgtest.Asst("x")},
			wantKinds: []msg.RepairKind{msg.RepairRemovedCall},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := msg.Clone(tt.in)
			got, repairs := msg.RepairToolPairs(tt.in)
			assert.Equal(t, tt.want, got)
			var kinds []msg.RepairKind
			for _, r := range repairs {
				kinds = append(kinds, r.Kind)
			}
			assert.Equal(t, tt.wantKinds, kinds)
			assert.NoError(t, msg.Validate(got))
			assert.True(t, reflect.DeepEqual(before, tt.in), "the input is not modified")
		})
	}
}

func TestJoin(t *testing.T) {
	img := "img:https://x.test/i.png"
	tests := []struct {
		name  string
		parts [][]msg.Message
		want  []msg.Message
	}{
		{"no seam", [][]msg.Message{{msgtest.Sys("s"), msgtest.User("u")}, {msgtest.Asst("a")}}, []msg.Message{msgtest.Sys("s"), msgtest.User("u"), msgtest.Asst("a")}},
		{"user-user merged", [][]msg.Message{{msgtest.User("a")}, {msgtest.User("b"), msgtest.Asst("c")}}, []msg.Message{msgtest.User("a\n\nb"), msgtest.Asst("c")}},
		{"assistant-assistant merged", [][]msg.Message{{msgtest.User("u"), msgtest.Asst("a")}, {msgtest.Asst("b")}}, []msg.Message{msgtest.User("u"), msgtest.Asst("a\n\nb")}},
		{"assistant text then assistant calls merged, calls kept", [][]msg.Message{{msgtest.Asst("a")}, {msgtest.Call("b", "c1", "bash")}},
			[]msg.Message{msgtest.Call("a\n\nb", "c1", "bash")}},
		{"assistant calls then assistant: not a seam to merge", [][]msg.Message{{msgtest.Call("", "c1", "bash")}, {msgtest.Asst("b")}},
			[]msg.Message{msgtest.Call("", "c1", "bash"), msgtest.Asst("b")}},
		{"tool-tool is legal", [][]msg.Message{{msgtest.Call("", "c1", "bash", "c2", "read"), msgtest.Result("c1", "x")}, {msgtest.Result("c2", "y")}},
			[]msg.Message{msgtest.Call("", "c1", "bash", "c2", "read"), msgtest.Result("c1", "x"), msgtest.Result("c2", "y")}},
		{"string meets parts", [][]msg.Message{{msgtest.User("a")}, {msgtest.Parts(msg.RoleUser, "b", img)}}, []msg.Message{msgtest.Parts(msg.RoleUser, "a", "b", img)}},
		{"parts meet parts", [][]msg.Message{{msgtest.Parts(msg.RoleUser, img)}, {msgtest.Parts(msg.RoleUser, "b")}}, []msg.Message{msgtest.Parts(msg.RoleUser, img, "b")}},
		{"empty parts skipped", [][]msg.Message{{msgtest.User("a")}, nil, {}, {msgtest.User("b")}}, []msg.Message{msgtest.User("a\n\nb")}},
		{"seams inside a part untouched", [][]msg.Message{{msgtest.User("a"), msgtest.User("b")}}, []msg.Message{msgtest.User("a"), msgtest.User("b")}},
		{"system-system left alone", [][]msg.Message{{msgtest.Sys("a")}, {msgtest.Sys("b")}}, []msg.Message{msgtest.Sys("a"), msgtest.Sys("b")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := make([][]msg.Message, len(tt.parts))
			for i, p := range tt.parts {
				before[i] = msg.Clone(p)
			}
			got := msg.Join(tt.parts...)
			assert.Equal(t, tt.want, got)
			assert.True(t, reflect.DeepEqual(before, tt.parts), "the inputs are not modified")
		})
	}
}

func TestMergeTurnsKeepsEveryField(t *testing.T) {
	a := msgtest.Asst("a")
	a.ReasoningContent = "thought a"
	a.Refusal = "no a"
	b := msgtest.Call("b", "c1", "bash")
	b.ReasoningContent = "thought b"
	b.Name = "helper"
	got := msg.MergeTurns(a, b)
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
	all := msgtest.All(t)
	for _, name := range msgtest.Names(all) {
		msgs := all[name]
		t.Run(name, func(t *testing.T) {
			require.NoError(t, msg.Validate(msgs))
			got, repairs := msg.RepairToolPairs(msgs)
			assert.Empty(t, repairs)
			assert.True(t, reflect.DeepEqual(msgs, got))
		})
	}
}

// Real transcripts reuse tool-call ids once the earlier call is answered,
// and several end on a call that has no result yet. Both must validate, and
// a repair of the same history cut short must keep the pending group.
func TestRealTranscriptShapes(t *testing.T) {
	reused := msgtest.Shared(t)["taubench__airline_task2_trial1.json"]
	pending := msgtest.Shared(t)["openhands__ponylang__ponyc-4595.json"]
	own := msgtest.Own(t)["coding_session.json"]

	cases := map[string][]msg.Message{"own coding session (reused id, pending end)": own}
	if reused != nil {
		cases["tau-bench reused ids"] = reused
	}
	if pending != nil {
		cases["openhands pending final call"] = pending
	}
	for name, msgs := range cases {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, msg.Validate(msgs))
			// Cut each history just after every assistant turn with calls: the
			// cut ends on a pending group, which must stay.
			for i, m := range msgs {
				if len(m.ToolCalls) == 0 {
					continue
				}
				cut := msgs[:i+1]
				require.NoError(t, msg.Validate(cut), "cut at %d", i)
				got, repairs := msg.RepairToolPairs(cut)
				assert.Empty(t, repairs, "cut at %d", i)
				assert.Equal(t, m.ToolCalls, got[len(got)-1].ToolCalls)
			}
		})
	}
	if reused == nil || pending == nil {
		t.Log("shared transcripts absent: checked our own only")
	}
}
