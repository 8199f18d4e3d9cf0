package promptsize_test

import (
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/internal/promptsize"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
)

// maxError is how far the estimate may stray from the count of the
// rendered prompt, as a fraction of it (the worst seen: 4.5%).
const maxError = 0.05

// caps are the rendering's defaults, as the Compressor passes them.
var caps = promptsize.Caps{Message: 4000, Arguments: 1000, Total: 120000, GapMarker: 100, Separator: "\n\n"}

// exact is what the prompt SummaryPrompt renders for req takes.
func exact(tc tokens.Counter, req compact.SummaryRequest) int {
	instructions, material := compact.SummaryPrompt(req)
	return tokens.CountMessages(tc, []compact.Message{
		{Role: compact.RoleSystem, Content: instructions}, {Role: compact.RoleUser, Content: material}})
}

func estimate(tc tokens.Counter, req compact.SummaryRequest) int {
	return promptsize.Prompt(tc, promptsize.Request{Instructions: compact.DefaultSummaryInstructions,
		Previous: req.PreviousSummary, Focus: req.Focus, Turns: req.Turns, Target: req.TargetTokens}, caps)
}

// The estimate of a summarizer's prompt stays within maxError of the
// count of the prompt SummaryPrompt renders, on every shared transcript,
// whole (over the rendering's cap for most), its first half and its first
// tenth (under it), with and without a previous summary, for both
// encodings and the byte estimate; and on the transcripts joined.
func TestEstimateStaysNearTheRenderedPrompt(t *testing.T) {
	all := msgtest.Transcripts(t, sharedtest.Files(t))
	names := make([]string, 0, len(all))
	var joined []compact.Message
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		joined = append(joined, all[n]...)
	}
	all["joined"] = joined
	names = append(names, "joined")
	for _, enc := range []string{tokens.EncodingO200KBase, tokens.EncodingCL100KBase, "estimate"} {
		var tc tokens.Counter = tokens.Estimator{}
		if enc != "estimate" {
			exact, err := tokens.ForEncoding(enc)
			if err != nil {
				t.Fatal(err)
			}
			tc = exact
		}
		worst, sum, n := 0.0, 0.0, 0
		for _, name := range names {
			h := all[name]
			for _, turns := range [][]compact.Message{h, h[:len(h)/2], h[:max(len(h)/10, 1)]} {
				for _, prev := range []string{"", "## Task\nFix the parser in `internal/parse/lexer.go`; `go test ./...` fails."} {
					req := compact.SummaryRequest{Turns: turns, PreviousSummary: prev, TargetTokens: 2000}
					want, got := exact(tc, req), estimate(tc, req)
					e := float64(got-want) / float64(want)
					worst, sum, n = max(worst, math.Abs(e)), sum+e, n+1
					if math.Abs(e) > maxError {
						t.Errorf("%s, %s, %d turns: estimated %d tokens, rendered %d (%+.1f%%)", enc, name, len(turns), got, want, 100*e)
					}
				}
			}
		}
		t.Logf("%s: %d estimates, worst error %.1f%%, mean %+.1f%%", enc, n, 100*worst, 100*sum/float64(n))
	}
}

// Without the shared transcripts too, the estimate stays near the count
// of the rendered prompt: for short and long synthetic histories (the long
// one over the rendering's cap), and for the kinds of message the
// transcripts may lack: images, a named author, a refusal, a legacy
// function call, an empty message, a text cut in its middle.
func TestEstimateOfEachKindOfMessage(t *testing.T) {
	tc, err := tokens.ForEncoding(tokens.EncodingO200KBase)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("the build failed at step 3; retrying with -v\n", 300)
	kinds := []compact.Message{
		{Role: compact.RoleUser, Content: "Please fix the flaky test in ./pkg/queue."},
		{Role: compact.RoleUser, Name: "alice", MultiContent: []openai.ChatMessagePart{
			{Type: openai.ChatMessagePartTypeText, Text: "What does this screenshot show?"},
			{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "https://example.com/a.png"}}}},
		{Role: compact.RoleAssistant, Refusal: "I cannot help with that."},
		{Role: compact.RoleAssistant, FunctionCall: &openai.FunctionCall{Name: "lookup", Arguments: `{"q":"queue"}`}},
		{Role: compact.RoleAssistant},
		{Role: compact.RoleUser, Content: long},
	}
	for _, tt := range []struct {
		name  string
		turns []compact.Message
	}{
		{"synthetic, 40 messages", msgtest.Synthetic(40)},
		{"synthetic, 2,000 messages", msgtest.Synthetic(2000)},
		{"each kind", kinds},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := compact.SummaryRequest{Turns: tt.turns, TargetTokens: 500}
			want, got := exact(tc, req), estimate(tc, req)
			if e := float64(got-want) / float64(want); math.Abs(e) > maxError {
				t.Errorf("estimated %d tokens, rendered %d (%+.1f%%)", got, want, 100*e)
			}
		})
	}
	if n := promptsize.Turns(nil, tc, caps); n != 0 {
		t.Errorf("no turns: %d tokens, want 0", n)
	}
}

// Any history, under any caps, gets an estimate: no panic, never
// negative, and none for no turns.
func FuzzTurns(f *testing.F) {
	msgtest.Seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		turns := msgtest.Random(data)
		for _, c := range []promptsize.Caps{caps, {Message: -1, Arguments: -1, Total: -1, Separator: "\n\n"},
			{Message: 0, Arguments: 0, Total: 256, GapMarker: 100, Separator: "\n\n"}} {
			n := promptsize.Turns(turns, tokens.Estimator{}, c)
			if n < 0 || len(turns) == 0 && n != 0 {
				t.Fatalf("%d turns under %+v: %d tokens", len(turns), c, n)
			}
		}
	})
}

// scaled is a counter whose counts change with its factor, which it names
// as its Version, as a calibrating counter does.
type scaled struct {
	tc     tokens.Counter
	factor int
}

func (s *scaled) CountText(t string) int { return s.factor * s.tc.CountText(t) }
func (s *scaled) CountMessage(m openai.ChatCompletionMessage) int {
	return s.factor * s.tc.CountMessage(m)
}
func (s *scaled) Version() any { return s.factor }

// A remembered estimate is Turns' own, whatever came before it: a history
// estimated again after it grew, after a message was changed in place or
// replaced at its index, under other caps, and after the counter's counts
// changed.
func TestTurnsMemoIsTurns(t *testing.T) {
	tc, err := tokens.ForEncoding(tokens.EncodingO200KBase)
	require.NoError(t, err)
	all := msgtest.All(t)
	for _, name := range msgtest.Names(all) {
		h := all[name]
		turns := make([]compact.Message, len(h))
		for i, m := range h {
			turns[i] = compact.Clone([]compact.Message{m})[0]
		}
		sc := &scaled{tc: tc, factor: 1}
		m := promptsize.NewMemo()
		check := func(what string, turns []compact.Message, caps promptsize.Caps) {
			t.Helper()
			require.Equal(t, promptsize.Turns(turns, sc, caps), promptsize.TurnsMemo(turns, sc, caps, m), "%s: %s", name, what)
		}
		check("half", turns[:len(turns)/2], caps)
		check("whole", turns, caps)
		check("again", turns, caps)
		small := caps
		small.Message, small.Total = 200, 3000
		check("other caps", turns, small)
		for i := range turns {
			if len(turns[i].ToolCalls) > 0 {
				turns[i].ToolCalls[0].Function.Arguments = `{"path": "` + strings.Repeat("changed/", 200) + `"}`
				break
			}
		}
		for i := range turns {
			if turns[i].Content != "" {
				turns[i].Content += strings.Repeat(" changed in place", 300)
				break
			}
		}
		check("changed in place", turns, caps)
		turns[len(turns)-1] = compact.Message{Role: "user", Content: strings.Repeat("replaced ", 500)}
		check("replaced", turns, caps)
		sc.factor = 2
		check("counted otherwise", turns, caps)
	}
}
