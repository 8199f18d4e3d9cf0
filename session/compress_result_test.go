package session

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// resultKeeper is a Compressor that keeps the Results it returns.
type resultKeeper struct {
	*compact.Compressor
	mu   sync.Mutex
	last *compact.Result
}

func (e *resultKeeper) Compress(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error) {
	res, err := e.Compressor.Compress(ctx, msgs, opts...)
	e.mu.Lock()
	e.last = res
	e.mu.Unlock()
	return res, err
}

// Compress returns the caller's own Result, with a store or without one,
// compacting or not: never the engine's, and sharing nothing with it or
// with the live history, so a caller that edits it changes neither.
func TestCompressReturnsTheCallersOwnResult(t *testing.T) {
	cases := map[string]struct {
		opts []Option
		n    int // messages in the history
	}{
		"without a store":                     {n: 200},
		"with a store":                        {opts: []Option{WithStore(store.NewMemory())}, n: 200},
		"with a store and recall":             {opts: []Option{WithStore(store.NewMemory()), WithRecall(true)}, n: 200},
		"skipped, without a store":            {n: 6},
		"skipped, with a store":               {opts: []Option{WithStore(store.NewMemory())}, n: 6},
		"forced, background on":               {opts: []Option{WithBackground(true)}, n: 200},
		"forced, background on, with a store": {opts: []Option{WithStore(store.NewMemory()), WithBackground(true)}, n: 200},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			engine := &resultKeeper{Compressor: newTestCompressor(&recorder{Out: "The agent fixed the build."})}
			s, err := Open(ctx, "own", engine, tc.opts...)
			require.NoError(t, err)
			defer func() { require.NoError(t, s.Close(ctx)) }()
			mustAppend(t, s, chatHistory("own", tc.n)...)
			finishBackground(t, s)

			var opts []compact.CompressOption
			if strings.HasPrefix(name, "forced") {
				opts = append(opts, compact.Force())
			}
			res, err := s.Compress(ctx, opts...)
			require.NoError(t, err)
			engine.mu.Lock()
			theirs := engine.last
			engine.mu.Unlock()
			require.NotNil(t, theirs)
			require.True(t, theirs != res, "the Result is a copy, not the engine's")
			require.Len(t, res.Messages, len(theirs.Messages))
			if tc.n > 6 {
				require.Empty(t, res.Skipped)
			}
			for i := range res.Messages {
				if i == res.SummaryIndex && s.recall {
					assert.True(t, strings.HasPrefix(compact.Text(res.Messages[i]), compact.Text(theirs.Messages[i])),
						"the summary as installed: the engine's, with its recall line")
					continue
				}
				assert.True(t, equalMessage(theirs.Messages[i], res.Messages[i]), "message %d", i)
			}

			live := s.Messages()
			engineText := compact.Text(theirs.Messages[len(theirs.Messages)-1])
			for i := range res.Messages {
				res.Messages[i].Content = "changed by the caller"
			}
			assert.True(t, equalHistory(live, s.Messages()), "the live history is unchanged")
			assert.Equal(t, engineText, compact.Text(theirs.Messages[len(theirs.Messages)-1]), "the engine's Result is unchanged")
		})
	}
}
