package promptsize

import (
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/tokens"
)

// benchCaps are the rendering's defaults, as the Compressor passes them.
var benchCaps = Caps{Message: 4000, Arguments: 1000, Total: 120000, GapMarker: 100, Separator: "\n\n"}

// joined returns the first n messages of the shared transcripts joined in
// name order, the first keeping its system prompt: near the history the
// engine's CPU benchmark compacts.
func joined(b *testing.B, n int) []msg.Message {
	b.Helper()
	all := msgtest.Shared(b)
	if len(all) == 0 {
		sharedtest.Missing(b)
	}
	var h []msg.Message
	for i, name := range msgtest.Names(all) {
		for _, m := range all[name] {
			if i == 0 || m.Role != msg.RoleSystem {
				h = append(h, m)
			}
		}
	}
	return h[:min(n, len(h))]
}

// BenchmarkTurns is the estimate of a first compaction: every message seen
// fresh, with a counter that counted the messages already (as the engine's
// has).
func BenchmarkTurns(b *testing.B) {
	turns := joined(b, 567)[1:466] // near the turns the engine folds
	tc, err := tokens.ForEncoding(tokens.EncodingO200KBase)
	if err != nil {
		b.Fatal(err)
	}
	tokens.CountMessages(tc, turns)
	Turns(turns, tc, benchCaps) // the counter's own memo of the fixed texts
	b.ReportAllocs()
	for b.Loop() {
		Turns(turns, tc, benchCaps)
	}
}

// BenchmarkChars is the characters part of the estimate alone.
func BenchmarkChars(b *testing.B) {
	turns := joined(b, 567)[1:466] // near the turns the engine folds
	names := toolNames(turns)
	b.ReportAllocs()
	for b.Loop() {
		e := &estimator{caps: benchCaps, short: map[string]string{}}
		for i, t := range turns {
			e.chars(t, names[i])
		}
	}
}
