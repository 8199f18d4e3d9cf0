package tokens_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/contextkit/compact/tokens"
	"github.com/contextkit/compact/tokens/internal/bpe"
	"github.com/stretchr/testify/require"
)

// seamTexts are texts whose seams (bpe.Seam) are worth checking: random
// lines over every class the patterns tell apart, joined by line breaks
// and the characters around them, and every text of the shared
// transcripts when they are present.
func seamTexts(t *testing.T) []string {
	rng := rand.New(rand.NewSource(7))
	joins := []string{"\n", "\r\n", "\n\n", " \n", "\n ", "\n/", ".\n", "\n'", "\n's", "\n\u00a0", "\n\t", "x\n"}
	var out []string
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for k := rng.Intn(6) + 1; k > 0; k-- {
			b.WriteString(randomText(rng, 12))
			b.WriteString(joins[rng.Intn(len(joins))])
		}
		out = append(out, b.String())
	}
	for _, msgs := range sharedTranscripts(t) {
		for _, m := range msgs {
			out = append(out, texts(m)...)
		}
	}
	return out
}

// A text splits into the same pieces as its parts cut at every seam, in
// both encodings: so a text counts as the sum of the counts of its chunks.
func TestSeamsSplitAsTheWhole(t *testing.T) {
	for _, enc := range encodings {
		e, ok, err := bpe.Load(enc)
		require.True(t, ok)
		require.NoError(t, err)
		for _, s := range seamTexts(t) {
			whole := e.Split(s)
			var parts []string
			for rest := s; rest != ""; {
				p := bpe.Seam(rest)
				parts = append(parts, e.Split(rest[:p])...)
				rest = rest[p:]
			}
			require.Equal(t, whole, parts, "%s: %.300q", enc, s)
		}
	}
}

// The memoised counter counts a long text in remembered chunks: its count
// is the count of the whole, the first time and again, and for a text
// assembled from parts counted before (a summary carrying user messages).
func TestChunkedCountsAreTheWholes(t *testing.T) {
	all := seamTexts(t)
	for _, enc := range encodings {
		plain, err := tokens.ForEncoding(enc, tokens.WithCacheSize(0))
		require.NoError(t, err)
		memo, err := tokens.ForEncoding(enc)
		require.NoError(t, err)
		var b strings.Builder
		for i, s := range all {
			want := plain.CountText(s)
			require.Equal(t, want, memo.CountText(s), "%s text %d: %.200q", enc, i, s)
			require.Equal(t, want, memo.CountText(s), "%s text %d again", enc, i)
			fmt.Fprintf(&b, "\n[user message, %d bytes]\n%s", len(s), s)
			if b.Len() > 64<<10 || i == len(all)-1 {
				joined := "[Context handoff] notes" + b.String()
				require.Equal(t, plain.CountText(joined), memo.CountText(joined), "%s: texts to %d joined", enc, i)
				b.Reset()
			}
		}
	}
}

func FuzzCountTextInChunks(f *testing.F) {
	f.Add("first line\nsecond", "x.\n/third\n", " \n\n'd \u00a0", 300)
	f.Add("a", "b", "c", 0)
	plain, err := tokens.ForEncoding(tokens.EncodingO200KBase, tokens.WithCacheSize(0))
	require.NoError(f, err)
	memo, err := tokens.ForEncoding(tokens.EncodingO200KBase, tokens.WithCacheSize(64))
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, a, b, c string, repeat int) {
		s := strings.Repeat(a+"\n"+b, min(max(repeat, 0), 64)) + "\n" + c
		want := plain.CountText(s)
		require.Equal(t, want, memo.CountText(s), "%.300q", s)
		require.Equal(t, want, memo.CountText(s), "again: %.300q", s)
		require.Equal(t, plain.CountText(b+"\n"+s), memo.CountText(b+"\n"+s), "shifted: %.300q", s)
	})
}
