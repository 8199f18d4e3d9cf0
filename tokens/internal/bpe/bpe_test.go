package bpe

import (
	"encoding/base64"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/racetest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encodeOrdinary returns the token ids of s as tiktoken's encode_ordinary
// does: the encoder's pieces, each merged by referenceMerge.
func encodeOrdinary(tb testing.TB, encoding, s string) []int {
	tb.Helper()
	enc, err := loadEncoding(encoding)
	require.NoError(tb, err)
	var ids []int
	for i := 0; i < len(s); {
		j := enc.next(s, i)
		for _, r := range referenceMerge(enc.ranks, s[i:j]) {
			ids = append(ids, int(r))
		}
		i = j
	}
	return ids
}

// referenceMerge is byte-pair merging written as plainly as tiktoken's
// description of it: start from single bytes; while some adjacent pair
// joins into a token, join the pair of lowest rank, leftmost first. It
// returns the ranks of the parts left. It takes time quadratic in len(p),
// and is the yardstick for the encoder's two merges.
func referenceMerge(t *rankTable, p string) []uint32 {
	parts := make([]string, len(p))
	for i := 0; i < len(p); i++ {
		parts[i] = p[i : i+1]
	}
	for {
		best, at := noRank, -1
		for i := 0; i+1 < len(parts); i++ {
			if r := t.rank(parts[i] + parts[i+1]); r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		parts[at] += parts[at+1]
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	ranks := make([]uint32, len(parts))
	for i, part := range parts {
		if len(part) == 1 {
			ranks[i] = singleByteRank(t, part[0])
			continue
		}
		ranks[i] = t.rank(part)
	}
	return ranks
}

// singleByteRank finds the rank of a one-byte token by scanning the table.
func singleByteRank(t *rankTable, b byte) uint32 {
	for r := uint32(0); int(r) < len(t.offsets)-1; r++ {
		if tok := t.token(r); len(tok) == 1 && tok[0] == b {
			return r
		}
	}
	return noRank
}

// TestEncodingsMatchPublishedTokenIDs checks the encodings this package
// embeds against token ids published by tiktoken and its ports: the
// scanner's pieces and the rank tables give tiktoken's ids, and the
// counter counts as many.
func TestEncodingsMatchPublishedTokenIDs(t *testing.T) {
	tests := []struct {
		encoding, text, source string
		want                   []int
	}{
		{CL100KBase, "hello world", "openai/tiktoken tests/test_encoding.py test_simple", []int{15339, 1917}},
		{CL100KBase, "rer", "openai/tiktoken tests/test_encoding.py test_simple_regex", []int{38149}},
		{CL100KBase, "'rer", "openai/tiktoken tests/test_encoding.py test_simple_regex", []int{2351, 81}},
		{CL100KBase, "today\n ", "openai/tiktoken tests/test_encoding.py test_simple_regex", []int{31213, 198, 220}},
		{CL100KBase, "today\n \n", "openai/tiktoken tests/test_encoding.py test_simple_regex", []int{31213, 27907}},
		{CL100KBase, "today\n  \n", "openai/tiktoken tests/test_encoding.py test_simple_regex", []int{31213, 14211}},
		{CL100KBase, " \u00850", "openai/tiktoken tests/test_encoding.py test_basic_encode", []int{220, 126, 227, 15}},
		{CL100KBase, "👍", "openai/tiktoken tests/test_encoding.py test_encode_surrogate_pairs", []int{9468, 239, 235}},
		{CL100KBase, "tiktoken is great!", "OpenAI cookbook, How to count tokens with tiktoken", []int{83, 1609, 5963, 374, 2294, 0}},
		{CL100KBase, "antidisestablishmentarianism", "OpenAI cookbook, How to count tokens with tiktoken", []int{519, 85342, 34500, 479, 8997, 2191}},
		{CL100KBase, "2 + 2 = 4", "OpenAI cookbook, How to count tokens with tiktoken", []int{17, 489, 220, 17, 284, 220, 19}},
		{CL100KBase, "お誕生日おめでとう", "OpenAI cookbook, How to count tokens with tiktoken", []int{33334, 45918, 243, 21990, 9080, 33334, 62004, 16556, 78699}},
		{CL100KBase, "hello world!你好，世界！", "pkoukk/tiktoken-go tiktoken_test.go, converted from python", []int{15339, 1917, 0, 57668, 53901, 3922, 3574, 244, 98220, 6447}},
		{O200KBase, "hello world", "o200k_base ids as reproduced by its ports, e.g. Hugging Face Xenova/gpt-4o", []int{24912, 2375}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, encodeOrdinary(t, tt.encoding, tt.text), "%s %q (%s)", tt.encoding, tt.text, tt.source)
		assert.Equal(t, len(tt.want), newCounter(t, tt.encoding).CountText(tt.text), "%s %q (%s)", tt.encoding, tt.text, tt.source)
	}
}

// mergeInputs are pieces that exercise the merges: words, runs of one
// byte, base64, CJK, and random bytes, at lengths either side of
// smallPiece.
func mergeInputs() map[string]string {
	rng := rand.New(rand.NewSource(1))
	blob := make([]byte, 3000)
	rng.Read(blob)
	in := map[string]string{
		"word":         "antidisestablishmentarianism",
		"camel":        "ShouldCompressMessagesWithTheExactCounterWarmedOnlyByTheFirstCall",
		"letters":      strings.Repeat("a", 3000),
		"pairs":        strings.Repeat("ab", 1500),
		"spaces":       strings.Repeat(" ", 2000),
		"newlines":     strings.Repeat("\n", 2000),
		"separator":    strings.Repeat("=", 2000),
		"base64":       base64.StdEncoding.EncodeToString(blob),
		"cjk":          strings.Repeat("你好世界", 200),
		"random bytes": string(blob),
		"digits":       strings.Repeat("1234567890", 200),
	}
	for n := smallPiece - 2; n <= smallPiece+2; n++ {
		in[fmt.Sprintf("letters-%d", n)] = strings.Repeat("x", n)
		in[fmt.Sprintf("base64-%d", n)] = base64.StdEncoding.EncodeToString(blob)[:n]
	}
	return in
}

// TestMergesAgreeWithTheReference checks the merges against
// referenceMerge on every prefix of the inputs up to three times
// smallPiece (every seventh under the race detector), and on the whole: the
// small merge up to smallPiece bytes, the long merges at any length.
func TestMergesAgreeWithTheReference(t *testing.T) {
	for _, encName := range []string{O200KBase, CL100KBase} {
		enc, err := loadEncoding(encName)
		require.NoError(t, err)
		inputs := mergeInputs()
		sc := new(mergeScratch)
		for _, name := range sortedKeys(inputs) {
			s := inputs[name]
			step := 1
			if racetest.Enabled {
				step = 7
			}
			lengths := []int{len(s)}
			for n := 2; n <= min(len(s), 3*smallPiece); n += step {
				lengths = append(lengths, n)
			}
			for _, n := range lengths {
				p := s[:n]
				want := len(referenceMerge(enc.ranks, p))
				require.Equal(t, want, enc.ranks.mergeByHeap(p, sc), "%s %s[:%d]: heap merge", encName, name, n)
				if got, ok := enc.ranks.mergeBuckets(p, sc, len(p)); ok {
					require.Equal(t, want, got, "%s %s[:%d]: bucket merge", encName, name, n)
				}
				require.Equal(t, want, enc.ranks.mergeLarge(p, sc), "%s %s[:%d]: long merge", encName, name, n)
				if n <= smallPiece {
					require.Equal(t, want, enc.ranks.mergeSmall(p), "%s %s[:%d]: small merge", encName, name, n)
				}
				require.Equal(t, want, enc.merge(p), "%s %s[:%d]", encName, name, n)
			}
		}
	}
}

// TestRankTablesAreTheEmbeddedEncodings checks the tables' shape: sizes,
// the longest token, and every token found at its own rank.
func TestRankTablesAreTheEmbeddedEncodings(t *testing.T) {
	for _, tt := range []struct {
		encoding string
		tokens   int
	}{{O200KBase, 199998}, {CL100KBase, 100256}} {
		enc, err := loadEncoding(tt.encoding)
		require.NoError(t, err)
		tab := enc.ranks
		require.Equal(t, tt.tokens, len(tab.offsets)-1, tt.encoding)
		assert.Equal(t, 128, tab.maxLen, tt.encoding)
		for r := uint32(0); int(r) < tt.tokens; r++ {
			tok := tab.token(r)
			if len(tok) == 1 {
				continue
			}
			require.Equal(t, r, tab.rank(tok), "%s: the rank of token %q", tt.encoding, tok)
		}
		for _, s := range []string{"", "zz\x00\x01", strings.Repeat("q", 129), "\xff\xfe\xfd"} {
			assert.False(t, len(s) > 1 && tab.rank(s) != noRank, "%s: %q is no token", tt.encoding, s)
		}
		t.Logf("%s: %d tokens, %d bytes of tokens, %d bytes of index", tt.encoding, tt.tokens, len(tab.tokens), tab.memoryBytes())
	}
}

func TestCorruptTablesAreRejected(t *testing.T) {
	good := cl100kRanks
	for name, data := range map[string]string{
		"empty":           "",
		"no magic":        "ckranks0" + good[8:],
		"short":           good[:11],
		"truncated":       good[:len(good)-1],
		"extra":           good + "x",
		"too few singles": good[:8] + "\x01\x00\x00\x00" + "\x01" + "a",
	} {
		_, err := newRankTable(data)
		assert.ErrorIs(t, err, errBadTable, name)
	}
}

// tableOf builds a rank table of the 256 single bytes followed by tokens,
// in that rank order.
func tableOf(tb testing.TB, tokens ...string) *rankTable {
	tb.Helper()
	all := make([]string, 0, 256+len(tokens))
	for b := 0; b < 256; b++ {
		all = append(all, string([]byte{byte(b)}))
	}
	all = append(all, tokens...)
	var lengths, data strings.Builder
	for _, tok := range all {
		lengths.WriteByte(byte(len(tok)))
		data.WriteString(tok)
	}
	n := len(all)
	header := rankMagic + string([]byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)})
	t, err := newRankTable(header + lengths.String() + data.String())
	require.NoError(tb, err)
	return t
}

// TestALowerRankMadeMidPassGoesFirst uses a table where joining a token
// with its neighbour makes a token of lower rank ("xyz" ranks below "xy"),
// which the bucket merge must merge before the rest of the pass. Piece
// after piece of them makes the bucket merge give up for the heap merge,
// which keeps the time n log n.
func TestALowerRankMadeMidPassGoesFirst(t *testing.T) {
	tab := tableOf(t, "xyz", "xy", "zx")
	sc := new(mergeScratch)
	for _, p := range []string{"xyxyz" + strings.Repeat("xy", 40), strings.Repeat("xyz", 100), "zxy" + strings.Repeat("xyzx", 30)} {
		want := len(referenceMerge(tab, p))
		got, ok := tab.mergeBuckets(p, sc, 1<<30)
		require.True(t, ok)
		assert.Equal(t, want, got, "%q: bucket merge", p)
		assert.Equal(t, want, tab.mergeByHeap(p, sc), "%q: heap merge", p)
		assert.Equal(t, want, tab.mergeLarge(p, sc), "%q", p)
	}
	_, ok := tab.mergeBuckets(strings.Repeat("xyz", 1000), sc, 3000)
	assert.False(t, ok, "a merge that pauses at every step gives up")
}

// TestMergesAgreeOnRandomTables checks the merges against referenceMerge
// with small random tables over three letters, whose ranks follow no
// order: a token may rank below its parts, as the real tables allow.
func TestMergesAgreeOnRandomTables(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	sc := new(mergeScratch)
	tables := 300
	if testing.Short() || racetest.Enabled {
		tables = 30
	}
	for k := 0; k < tables; k++ {
		seen := map[string]bool{}
		var tokens []string
		for len(tokens) < 12 {
			var b strings.Builder
			for n := 2 + rng.Intn(3); n > 0; n-- {
				b.WriteByte("xyz"[rng.Intn(3)])
			}
			if tok := b.String(); !seen[tok] {
				seen[tok] = true
				tokens = append(tokens, tok)
			}
		}
		tab := tableOf(t, tokens...)
		for i := 0; i < 20; i++ {
			var b strings.Builder
			for n := 1 + rng.Intn(150); n > 0; n-- {
				b.WriteByte("xyz"[rng.Intn(3)])
			}
			p := b.String()
			want := len(referenceMerge(tab, p))
			got, ok := tab.mergeBuckets(p, sc, 1<<30)
			require.True(t, ok)
			require.Equal(t, want, got, "tokens %q, piece %q: bucket merge", tokens, p)
			require.Equal(t, want, tab.mergeByHeap(p, sc), "tokens %q, piece %q: heap merge", tokens, p)
			if len(p) <= smallPiece {
				require.Equal(t, want, tab.mergeSmall(p), "tokens %q, piece %q: small merge", tokens, p)
			}
		}
	}
}
