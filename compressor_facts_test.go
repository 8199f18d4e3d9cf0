package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/extractive"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// factDenseSession is a session of n tool rounds, each passing two
// identifiers and failing with its own error after noise lines of other
// output: with no noise, nearly every token is a fact.
func factDenseSession(n, noise int) []Message {
	msgs := []Message{sys("You are a support agent."), user("Rebook every reservation on my account.")}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs, msgtest.ToolRound(id, "update_reservation",
			fmt.Sprintf(`{"reservation_id":"R%05dX","payment_id":"gift_card_%07d"}`, i, i),
			strings.Repeat("{\"seat\": \"12A\", \"status\": \"held\"}\n", noise)+
				fmt.Sprintf("Error: payment method gift_card_%07d has no balance", i))...)
	}
	return append(msgs, asst("Every reservation failed to rebook."))
}

// proseSession is a session of n long assistant answers: as many tokens,
// no facts.
func proseSession(n int) []Message {
	msgs := []Message{sys("You are a writing assistant."), user("Draft the essay.")}
	for i := 0; i < n; i++ {
		msgs = append(msgs, asst(strings.Repeat(fmt.Sprintf("Paragraph %d goes on about the topic at length. ", i), 6)),
			user(fmt.Sprintf("Go on with part %d.", i+1)))
	}
	return append(msgs, asst("Done."))
}

func TestSummaryBudgetGrowsForAFactDenseRange(t *testing.T) {
	dense, prose := &recorder{}, &recorder{}
	c := newTestCompressor(dense)
	_, err := c.Compress(context.Background(), factDenseSession(80, 0), Force())
	require.NoError(t, err)
	_, err = newTestCompressor(prose).Compress(context.Background(), proseSession(25), Force())
	require.NoError(t, err)

	th := c.th
	capTokens := th.threshold / factsCapDivisor
	base := th.summary
	assert.Equal(t, base, prose.Last().TargetTokens, "a range without facts keeps the ordinary target")
	got := dense.Last().TargetTokens
	assert.Greater(t, got, base, "a fact-dense range gets more room")
	assert.LessOrEqual(t, got, capTokens, "at most a third of the threshold")
	assert.Equal(t, capTokens, got, "eighty identifiers and errors need all of it")
}

func TestFactsTargetRule(t *testing.T) {
	c := newTestCompressor(&recorder{})
	req := SummaryRequest{Turns: factDenseSession(3, 0)[1:]}
	want := extractive.FactsRoom(context.Background(), extractiveRequest(req), 1000)
	require.Positive(t, want)
	tests := []struct {
		name                string
		base, limit, folded int
		want                int
	}{
		{"grows so the index takes its share", 10, 100_000, 100_000, want},
		{"never shrinks the target", want + 50, 100_000, 100_000, want + 50},
		{"capped at the limit (a third of the threshold)", 10, want - 7, 100_000, want - 7},
		{"capped at half the tokens folded", 10, 100_000, 2 * (want - 5), want - 5},
		{"no room to grow", 10, 10, 100_000, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, c.factsTarget(context.Background(), req, tt.base, tt.limit, tt.folded))
		})
	}
	assert.Zero(t, extractive.FactsRoom(context.Background(), extractive.Request{Turns: proseSession(3)}, 1000), "prose holds no facts")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.Zero(t, extractive.FactsRoom(ctx, extractiveRequest(req), 1000), "a done context measures nothing")
}

// TestFactDenseCompactionKeepsItsFacts compacts a session whose facts need
// more than the ordinary summary target, with the default summarizer at a
// 16,000-token window: every identifier and error of the summarised range
// is still in the history it returns.
func TestFactDenseCompactionKeepsItsFacts(t *testing.T) {
	msgs := factDenseSession(20, 80)
	c := New(WithContextWindow(16_000), WithTokenCounter(byteCounter{}), WithPruning(false))
	res, err := c.Compress(context.Background(), msgs, Force())
	require.NoError(t, err)
	require.Greater(t, byteCounter{}.CountText(res.Summary), c.th.summary, "the summary needed more than the ordinary target")
	var out strings.Builder
	for _, m := range res.Messages {
		out.WriteString(Text(m) + "\n" + msg.ToolCallText(m) + "\n")
	}
	text := out.String()
	facts := 0
	for i := res.SummarizedFrom; i <= res.SummarizedTo; i++ {
		var want []string
		for _, c := range msgs[i].ToolCalls {
			var args map[string]string
			require.NoError(t, json.Unmarshal([]byte(c.Function.Arguments), &args))
			want = append(want, args["reservation_id"], args["payment_id"])
		}
		if msgs[i].Role == RoleTool {
			lines := strings.Split(Text(msgs[i]), "\n")
			want = append(want, lines[len(lines)-1]) // the error line
		}
		for _, f := range want {
			facts++
			assert.True(t, strings.Contains(text, f), "message %d: %q is lost", i, f)
		}
	}
	assert.Greater(t, facts, 30, "the range held facts")
}
