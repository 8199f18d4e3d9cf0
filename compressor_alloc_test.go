package compact

import (
	"context"
	"fmt"
	"testing"

	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
)

// allocHistory is a valid history of about n messages: a system prompt,
// then user turns, each answered by a tool call, its result and a reply.
func allocHistory(n int) []Message {
	h := []Message{{Role: RoleSystem, Content: "You are a careful coding agent."}}
	for i := 0; len(h) < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		h = append(h,
			Message{Role: RoleUser, Content: fmt.Sprintf("Step %d: run the tests in pkg%d and fix what fails.", i, i)},
			Message{Role: RoleAssistant, ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: "bash", Arguments: fmt.Sprintf(`{"command":"go test ./pkg%d"}`, i)}}}},
			Message{Role: RoleTool, ToolCallID: id, Name: "bash", Content: fmt.Sprintf("ok  \tpkg%d\t0.%03ds", i, i)},
			Message{Role: RoleAssistant, Content: fmt.Sprintf("pkg%d passes.", i)},
		)
	}
	return h
}

// unchangedAllocs is the allocation budget of a Compress that changes
// nothing: its Result and the few values its checks keep.
const unchangedAllocs = 8

// A Compress that changes nothing (a history under the threshold) allocates
// the same whatever the history's length, and at most unchangedAllocs
// times (issue 34.5): its checks count what the counter remembers and copy
// nothing per message. With the host's exact counter and with the one a
// Compressor builds for its model.
func TestCompressUnderThresholdAllocates(t *testing.T) {
	for _, own := range []bool{false, true} {
		t.Run(fmt.Sprintf("own counter %v", own), func(t *testing.T) { underThresholdAllocates(t, own) })
	}
}

func underThresholdAllocates(t *testing.T, own bool) {
	ctx := context.Background()
	allocs := map[int]float64{}
	for _, n := range []int{40, 400, 4000} {
		h := allocHistory(n)
		opts := []Option{WithContextWindow(10_000_000)}
		if !own {
			tc, err := tokens.ForEncoding(tokens.EncodingO200KBase)
			if err != nil {
				t.Fatal(err)
			}
			opts = append(opts, WithTokenCounter(tc))
		}
		c := New(opts...)
		res, err := c.Compress(ctx, h) // warms the counter
		if err != nil {
			t.Fatal(err)
		}
		if res.Skipped == "" || len(res.Messages) != len(h) {
			t.Fatalf("%d messages: Compress changed the history (skipped %q)", n, res.Skipped)
		}
		allocs[n] = testing.AllocsPerRun(20, func() {
			if _, err := c.Compress(ctx, h); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Logf("allocations at 40, 400 and 4,000 messages: %v", []float64{allocs[40], allocs[400], allocs[4000]})
	if allocs[4000] > unchangedAllocs {
		t.Errorf("an unchanged Compress of 4,000 messages allocates %v times, budget %d", allocs[4000], unchangedAllocs)
	}
	if allocs[40] != allocs[400] || allocs[400] != allocs[4000] {
		t.Errorf("an unchanged Compress allocates %v times at 40, 400 and 4,000 messages, want the same",
			[]float64{allocs[40], allocs[400], allocs[4000]})
	}
}
