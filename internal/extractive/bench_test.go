package extractive

import (
	"context"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/sharedtest"
)

// benchHistoryBytes is the size of the long history the benchmark
// summarises: about 200k tokens at four bytes a token.
const benchHistoryBytes = 800 << 10

// longHistory chains every shared transcript (system prompts after the
// first left out), repeating the chain, until its text reaches n bytes.
func longHistory(b *testing.B, n int) ([]Message, int) {
	b.Helper()
	all := sharedTranscripts(b)
	if len(all) == 0 {
		sharedtest.Missing(b)
	}
	var msgs []Message
	size := 0
	names := sortedNames(all)
	for k := 0; size < n; k++ {
		for _, m := range all[names[k%len(names)]] {
			if m.Role == msg.RoleSystem && len(msgs) > 0 {
				continue
			}
			msgs = append(msgs, m)
			size += len(msg.Text(m)) + len(msg.ToolCallText(m))
		}
	}
	return msgs, size
}

// BenchmarkExtractive summarises a ~200k-token history at the default
// target, plainly and with a focus topic (which adds a case-insensitive
// search of every message).
// Run: go test -run '^$' -bench Extractive -benchmem -count 5
func BenchmarkExtractive(b *testing.B) {
	msgs, size := longHistory(b, benchHistoryBytes)
	s := New(Limits{}, nil)
	ctx := context.Background()
	for _, focus := range []string{"", "test"} {
		name := "plain"
		if focus != "" {
			name = "focus"
		}
		req := Request{Turns: msgs, TargetTokens: defaultTarget, Focus: focus}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := s.Summarize(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFactsRoom measures the facts index of the same history, as the
// engine does before every compaction to size the summary's target (no
// memo: every turn is scanned, as on a host's first compaction).
// Run: go test -run '^$' -bench FactsRoom -benchmem -count 5
func BenchmarkFactsRoom(b *testing.B) {
	msgs, size := longHistory(b, benchHistoryBytes)
	req := Request{Turns: msgs, TargetTokens: defaultTarget}
	ctx := context.Background()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if FactsRoom(ctx, req, defaultTarget) == 0 {
			b.Fatal("no facts")
		}
	}
}
