package anthropic

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
)

// FuzzClearedResults checks the reading of a clearing the provider
// reports: the results named are tool messages, oldest first, never of an
// excluded tool, no more than the provider cleared, and no result the
// provider could have cleared is passed over for a newer one.
func FuzzClearedResults(f *testing.F) {
	f.Add([]byte{1, 2, 1, 2, 3, 0, 1, 2}, 2, uint8(1))
	f.Add([]byte{}, 0, uint8(0))
	f.Add([]byte{2, 2, 1, 0, 1, 2, 2}, 9, uint8(3))
	f.Fuzz(func(t *testing.T, kinds []byte, n int, excluded uint8) {
		tools := []string{"read_file", "memory", "grep"}
		exclude := []string{}
		for i, name := range tools {
			if excluded&(1<<i) != 0 {
				exclude = append(exclude, name)
			}
		}
		// Each byte is a message: a user turn, a call, or a result of the
		// latest call.
		var views []compact.Message
		calls := 0
		for i, k := range kinds {
			switch k % 3 {
			case 0:
				views = append(views, compact.Message{Role: compact.RoleUser, Content: "u"})
			case 1:
				calls++
				views = append(views, compact.Message{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{
					ID: fmt.Sprint("c", calls), Function: openai.FunctionCall{Name: tools[i%len(tools)]}}}})
			case 2:
				views = append(views, compact.Message{Role: compact.RoleTool, ToolCallID: fmt.Sprint("c", calls)})
			}
		}
		before := compact.Clone(views)
		got := clearedResults(views, n, exclude)
		require.True(t, reflect.DeepEqual(before, views), "the views changed")
		require.LessOrEqual(t, len(got), max(n, 0), "more results than the %d cleared", n)
		names := toolNames(views)
		eligible := func(j int) bool {
			return views[j].Role == compact.RoleTool && !slices.Contains(exclude, names[views[j].ToolCallID])
		}
		next := 0
		for _, j := range got {
			require.True(t, eligible(j), "message %d is not a result the provider could clear", j)
			for ; next < j; next++ {
				require.False(t, eligible(next), "result %d was passed over for the newer %d", next, j)
			}
			next = j + 1
		}
		if len(got) < n {
			for ; next < len(views); next++ {
				require.False(t, eligible(next), "result %d was left although the provider cleared %d", next, n)
			}
		}
	})
}

// FuzzCompressAfterTheProvidersCompaction compacts histories that hold the
// provider's compaction block (turns before it, turns after it) through a
// Compressor of a fuzzed window: the output has the API's shape, holds one
// summary at most (the provider's block or compact's own, never both, and
// only the newest block), keeps nothing the API would ignore before it,
// keeps the last turn, accounts for every message once, and leaves the
// input untouched.
func FuzzCompressAfterTheProvidersCompaction(f *testing.F) {
	f.Add(uint8(4), uint8(6), uint16(3000), true, false)
	f.Add(uint8(0), uint8(1), uint16(800), false, true)
	f.Add(uint8(9), uint8(0), uint16(20000), true, true)
	f.Fuzz(func(t *testing.T, before, after uint8, window uint16, force, twoBlocks bool) {
		h := History{System: []sdk.TextBlockParam{{Text: "You are a coding agent."}}}
		h.Messages = append(h.Messages, sdk.NewUserMessage(sdk.NewTextBlock("Which flags did v2 remove?")),
			sdk.NewAssistantMessage(sdk.NewTextBlock("I will read the parts.")))
		h.Messages = append(h.Messages, readingRounds("a", int(before%12))...)
		if twoBlocks {
			h.Messages = append(h.Messages, sdk.NewUserMessage(sdk.NewTextBlock("Go on.")),
				providerTurn(t, "An older summary.", "Older."))
		}
		h.Messages = append(h.Messages, sdk.NewUserMessage(sdk.NewTextBlock("Continue.")),
			providerTurn(t, providerSummary, "Reading the rest."))
		h.Messages = append(h.Messages, readingRounds("b", int(after%12))...)
		h.Messages = append(h.Messages, sdk.NewUserMessage(sdk.NewTextBlock("Which are left?")))
		require.NoError(t, Validate(h), "the fuzzed history")
		sent := string(encode(t, h))
		conv, err := Convert(h)
		require.NoError(t, err)
		var opts []compact.CompressOption
		if force {
			opts = append(opts, compact.Force())
		}
		out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(int(window)+200)), h, opts...)
		now := string(encode(t, h))
		require.True(t, now == sent, "the input changed: %s", msgtest.Difference(sent, now))
		if err != nil {
			require.NotErrorIs(t, err, ErrShape, "a valid history compacted into an invalid one")
			return
		}
		require.NoError(t, Validate(out), "restored output")
		require.True(t, reflect.DeepEqual(h.Messages[len(h.Messages)-1], out.Messages[len(out.Messages)-1]), "the last turn changed")
		if res.Skipped != "" {
			return
		}
		blocks, summaries := 0, 0
		for k, m := range out.Messages {
			for b, block := range turnBlocks(m) {
				if s, ok := readCompaction(block); ok {
					blocks++
					require.False(t, s != providerSummary || k != 0 || b != 0, "turn %d block %d: a compaction block that is not the newest, opening the history", k, b)
				}
				if block.OfText != nil && strings.Contains(block.OfText.Text, "[Context handoff]") {
					summaries++
				}
			}
		}
		require.LessOrEqual(t, blocks+summaries, 1, "%d provider blocks and %d summaries of compact's", blocks, summaries)
		if res.Account != nil {
			require.Equal(t, len(conv.Messages), len(res.Account), "a fate for every message")
			for j, f := range res.Account {
				require.Equal(t, j, f.Index, "fate %d", j)
			}
		}
	})
}
