package tokens_test

// The encoder checked against tiktoken-go, which stays the oracle: its
// pattern engine for the splitting, its counts for everything else.

import (
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/racetest"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/tiktokengo"
	"github.com/contextkit/compact/tokens"
	"github.com/contextkit/compact/tokens/internal/bpe"
	"github.com/dlclark/regexp2"
	loader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var encodings = []string{tokens.EncodingO200KBase, tokens.EncodingCL100KBase}

var patterns = map[string]string{
	tokens.EncodingO200KBase:  tiktokengo.O200KBasePattern,
	tokens.EncodingCL100KBase: tiktokengo.CL100KBasePattern,
}

// sharedTranscripts returns every message of the shared real transcripts,
// by file name. It skips tb when they are absent, unless
// COMPACT_REQUIRE_SHARED=1 makes their absence a failure.
func sharedTranscripts(tb testing.TB) map[string][]tokens.Message {
	tb.Helper()
	files := sharedtest.Files(tb)
	out := make(map[string][]tokens.Message, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(tb, err)
		var msgs []tokens.Message
		require.NoError(tb, json.Unmarshal(data, &msgs), f)
		out[filepath.Base(f)] = msgs
	}
	return out
}

// texts returns every piece of text a counter counts in m.
func texts(m tokens.Message) []string {
	out := []string{m.Role, m.Name, m.Content, m.Refusal, m.ReasoningContent, m.ToolCallID}
	for _, p := range m.MultiContent {
		out = append(out, p.Text)
	}
	if fc := m.FunctionCall; fc != nil {
		out = append(out, fc.Name, fc.Arguments)
	}
	for _, c := range m.ToolCalls {
		out = append(out, c.Function.Name, c.Function.Arguments)
	}
	return out
}

// counters returns this package's counter (without its message memo) and
// tiktoken-go's for encoding.
func counters(tb testing.TB, encoding string) (ours *tokens.Exact, oracle *tiktokengo.Counter) {
	tb.Helper()
	ours, err := tokens.ForEncoding(encoding, tokens.WithCacheSize(0))
	require.NoError(tb, err)
	oracle, err = tiktokengo.New(encoding)
	require.NoError(tb, err)
	return ours, oracle
}

// regexpPieces splits s with tiktoken-go's engine and pattern.
func regexpPieces(tb testing.TB, re *regexp2.Regexp, s string) []string {
	tb.Helper()
	var pieces []string
	m, err := re.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		pieces = append(pieces, m.String())
	}
	require.NoError(tb, err)
	return pieces
}

// classRunes are runes of every class the patterns tell apart, and of the
// edges of those classes.
var classRunes = []rune{
	'a', 'z', 'A', 'Z', 's', 'S', 't', 'T', 'r', 'R', 'e', 'E', 'v', 'V', 'm', 'M', 'l', 'L', 'd', 'D', 'x', 'Q',
	'\'', '0', '7', '9', ' ', ' ', ' ', '\t', '\n', '\r', '\v', '\f', '/', '.', ',', '!', '?', '-', '_', '=', '+',
	'(', '}', '"', '`', '#', '\\', '<', '>',
	0x85, 0xa0, 0x1680, 0x2000, 0x2028, 0x2029, 0x202f, 0x3000, 0x200b, 0xfeff, 0x180e, // spaces and near misses
	'é', 'ß', 'É', 'Ж', 'ж', 0x1c5, 0x1f88, 0x2b0, 0x3005, 'あ', '中', 'ا', 0x17f, 0x212a, 0x130, // Ll Lu Lt Lm Lo, folds
	0x301, 0x308, 0x903, 0x20dd, // Mn Mc Me
	0x663, 0x216b, '½', '²', 0x2460, // Nd Nl No
	0xfffd, '€', '©', '👍', 0x1f600, 0xe000, 0x10ffff,
}

// randomText returns text of up to n runes drawn from classRunes, with a
// byte of invalid UTF-8 now and then.
func randomText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for k := rng.Intn(n) + 1; k > 0; k-- {
		if rng.Intn(40) == 0 {
			b.WriteByte(0x80 + byte(rng.Intn(0x80)))
			continue
		}
		b.WriteRune(classRunes[rng.Intn(len(classRunes))])
	}
	return b.String()
}

// split returns the pieces the named encoding's scanner splits s into.
func split(tb testing.TB, encoding, s string) []string {
	tb.Helper()
	enc, ok, err := bpe.Load(encoding)
	require.True(tb, ok, encoding)
	require.NoError(tb, err)
	return enc.Split(s)
}

// checkSplit fails t when the scanner and tiktoken-go's pattern split s
// differently.
func checkSplit(t *testing.T, enc string, re *regexp2.Regexp, what, s string) {
	t.Helper()
	got := split(t, enc, s)
	want := regexpPieces(t, re, s)
	require.True(t, assert.ObjectsAreEqual(want, got) || len(want) == 0 && len(got) == 0, "%s %s: %.200q\n got %.300q\nwant %.300q", enc, what, s, got, want)
}

// TestSplitMatchesTiktokenGosPatterns checks the scanners piece for piece
// against tiktoken-go's regular expression engine running tiktoken's
// patterns: on random text over every class the patterns distinguish, and
// on text around every rune where the classes change (a tenth of the
// random texts under -short or the race detector).
func TestSplitMatchesTiktokenGosPatterns(t *testing.T) {
	random := 20000
	if testing.Short() || racetest.Enabled {
		random = 2000
	}
	for _, enc := range encodings {
		re := regexp2.MustCompile(patterns[enc], regexp2.None)
		rng := rand.New(rand.NewSource(1))
		for i := 0; i < random; i++ {
			checkSplit(t, enc, re, "random", randomText(rng, 24))
		}
		for _, r := range classEdges() {
			for _, ctx := range []string{"%c", "a%c", " %c", "%cb", "x'%c", "%c's", "%c%c", "A%cb", "%c\n", " %c%c1"} {
				checkSplit(t, enc, re, "edge", strings.ReplaceAll(ctx, "%c", string(r)))
			}
		}
	}
}

// TestSplitMatchesTiktokenGosPatternsOnTranscripts checks the scanners the
// same way on every text of the shared transcripts (a tenth of the
// messages under -short or the race detector). It is the one split test
// that needs ../shared.
func TestSplitMatchesTiktokenGosPatternsOnTranscripts(t *testing.T) {
	every := 1
	if testing.Short() || racetest.Enabled {
		every = 10
	}
	all := sharedTranscripts(t)
	for _, enc := range encodings {
		re := regexp2.MustCompile(patterns[enc], regexp2.None)
		for _, name := range sortedKeys(all) {
			for i, m := range all[name] {
				if i%every != 0 {
					continue
				}
				for _, s := range texts(m) {
					checkSplit(t, enc, re, fmt.Sprintf("%s message %d", name, i), s)
				}
			}
		}
	}
}

// classEdges returns the runes where the classes the patterns use, or
// lower-casing, change from the rune before: a sample of every run of
// runes that the patterns treat alike.
func classEdges() []rune {
	classOf := func(r rune) [8]bool {
		return [8]bool{
			unicode.IsLetter(r), unicode.IsNumber(r), unicode.IsSpace(r), unicode.IsMark(r),
			unicode.Is(unicode.Lu, r) || unicode.Is(unicode.Lt, r), unicode.Is(unicode.Ll, r),
			unicode.Is(unicode.Lm, r) || unicode.Is(unicode.Lo, r),
			unicode.ToLower(r) < utf8.RuneSelf,
		}
	}
	var edges []rune
	prev := classOf(-1)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if c := classOf(r); c != prev {
			edges = append(edges, r)
			prev = c
		}
	}
	return edges
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// updateCounts rewrites transcriptCounts from tiktoken-go.
var updateCounts = flag.Bool("update", false, "rewrite "+transcriptCounts+" with tiktoken-go's counts of the shared transcripts")

// transcriptCounts records tiktoken-go's count of every text of every
// message of the shared transcripts, so that comparing with it takes
// seconds even under the race detector, which slows tiktoken-go tenfold.
// A line is a transcript's file name, a message's index, a hash of its
// texts, and the counts of its texts (as texts lists them) in o200k_base
// and in cl100k_base. The counts are tiktoken-go's alone (go test -run
// TestCountsMatchTiktokenGoOnTranscripts -update writes them); a message
// whose line is missing or whose texts changed is counted by tiktoken-go
// on the spot.
const transcriptCounts = "testdata/tiktoken_transcript_counts.txt"

// recordedCounts reads transcriptCounts: by file name and index, the hash
// of the message's texts and the counts of its texts in each encoding.
func recordedCounts(tb testing.TB) map[string]string {
	tb.Helper()
	data, err := os.ReadFile(transcriptCounts)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(tb, err)
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if f := strings.SplitN(line, "\t", 3); len(f) == 3 {
			out[f[0]+"\t"+f[1]] = f[2]
		}
	}
	return out
}

// countsLine is a message's record: the hash of its texts, then each
// encoding's counts of them.
func countsLine(m tokens.Message, count func(enc, s string) int) string {
	h := fnv.New64a()
	var b strings.Builder
	for _, s := range texts(m) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	fmt.Fprintf(&b, "%016x", h.Sum64())
	for _, enc := range encodings {
		b.WriteByte('\t')
		for i, s := range texts(m) {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, count(enc, s))
		}
	}
	return b.String()
}

// TestCountsMatchTiktokenGoOnTranscripts is the exactness promise on real
// conversations: every text of every message of the shared transcripts
// (contents, parts, tool names and arguments, names, call ids) counts as
// tiktoken-go counts it, in both encodings, and so does every message,
// with the memo and without.
func TestCountsMatchTiktokenGoOnTranscripts(t *testing.T) {
	all := sharedTranscripts(t)
	ours, oracle := map[string]*tokens.Exact{}, map[string]*tiktokengo.Counter{}
	for _, enc := range encodings {
		ours[enc], oracle[enc] = counters(t, enc)
	}
	oracleCount := func(enc, s string) int { return oracle[enc].CountText(s) }
	oursCount := func(enc, s string) int { return ours[enc].CountText(s) }
	recorded := recordedCounts(t)
	var lines []string
	nTexts, live := 0, 0
	for _, name := range sortedKeys(all) {
		for i, m := range all[name] {
			key := fmt.Sprintf("%s\t%d", name, i)
			got := countsLine(m, oursCount)
			want, ok := recorded[key]
			if *updateCounts || !ok || want[:16] != got[:16] {
				want = countsLine(m, oracleCount)
				live++
			}
			lines = append(lines, key+"\t"+want)
			if got != want {
				for _, enc := range encodings {
					for _, s := range texts(m) {
						require.Equal(t, oracleCount(enc, s), oursCount(enc, s), "%s %s message %d: %.80q", enc, name, i, s)
					}
				}
				require.Equal(t, want, got, "%s message %d: counts against the recorded ones", name, i)
			}
			nTexts += len(texts(m))
		}
	}
	for _, enc := range encodings {
		warm, err := tokens.ForEncoding(enc)
		require.NoError(t, err)
		for _, name := range sortedKeys(all) {
			msgs := all[name]
			want := 0
			for _, m := range msgs {
				n := tokens.MessageTokens(m, func(s string) int { return oursCount(enc, s) }, 765)
				require.Equal(t, n, ours[enc].CountMessage(m), "%s %s", enc, name)
				require.Equal(t, n, warm.CountMessage(m), "%s %s, memoised", enc, name)
				want += n
			}
			assert.Equal(t, want+tokens.ReplyPrimingTokens, tokens.CountMessages(warm, msgs), "%s %s", enc, name)
		}
	}
	t.Logf("%d texts of %d transcripts exact in both encodings; %d messages counted by tiktoken-go on the spot", nTexts, len(all), live)
	if *updateCounts {
		require.NoError(t, os.WriteFile(transcriptCounts, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	} else if live > 0 {
		t.Logf("%d messages were not in %s: go test -run %s -update records them", live, transcriptCounts, t.Name())
	}
}

// hardTexts are texts where splitting or merging is easy to get wrong:
// long runs without boundaries (as base64 and minified data carry them),
// every kind of whitespace run, contractions, scripts without spaces,
// combining marks, invalid UTF-8 and special-token text.
func hardTexts() map[string]string {
	rng := rand.New(rand.NewSource(1))
	blob := make([]byte, 6<<10)
	rng.Read(blob)
	return map[string]string{
		"letters":         strings.Repeat("a", 4<<10),
		"mixed-case":      strings.Repeat("AbCdEfGhIj", 300),
		"upper":           strings.Repeat("ABCDEFGHIJ", 300),
		"base64":          base64.StdEncoding.EncodeToString(blob),
		"base64url":       base64.RawURLEncoding.EncodeToString(blob[:3<<10]),
		"hex":             fmt.Sprintf("%x", blob[:2<<10]),
		"separator":       strings.Repeat("=", 4<<10),
		"spaces":          strings.Repeat(" ", 4<<10),
		"spaces then x":   strings.Repeat(" ", 300) + "x",
		"newlines":        strings.Repeat("\n", 4<<10),
		"mixed space":     strings.Repeat(" \t\n \r\n\u00a0\u3000", 200),
		"cjk":             strings.Repeat("你好世界", 600),
		"japanese":        strings.Repeat("お誕生日おめでとう", 100),
		"combining":       strings.Repeat("e\u0301\u0308a\u0300", 300),
		"minified":        strings.Repeat("function(a,b){return a+b}", 200),
		"long word prose": "The file was " + strings.Repeat("very", 200) + " long, and then it ended.",
		"contractions":    "I'm sure they'd've said WE'LL, you're, it's, I'D, can't 'tis 'S 'Re 'LL",
		"digits":          strings.Repeat("1234567890", 300) + " 3.14159 ٣٤٥ Ⅻ ½",
		"invalid utf-8":   "ok \xff\xfe bad \xc3 \xed\xa0\x80 end" + string(blob[:500]),
		"special tokens":  "<|endoftext|> <|endofprompt|> <|fim_prefix|><|fim_middle|><|fim_suffix|>",
		"emoji":           strings.Repeat("👍🏽 🇫🇷 👨‍👩‍👧 ", 100),
		"paths":           strings.Repeat("/usr/local/lib/python3.11/site-packages/pkg/mod.py:\n", 50),
	}
}

func TestCountsMatchTiktokenGoOnHardText(t *testing.T) {
	inputs := hardTexts()
	for _, enc := range encodings {
		ours, oracle := counters(t, enc)
		for _, name := range sortedKeys(inputs) {
			s := inputs[name]
			assert.Equal(t, oracle.CountText(s), ours.CountText(s), "%s %s", enc, name)
		}
	}
}

// TestCountsMatchTiktokenGoOnRandomText compares counts on random text
// over every class, and on random slices of the hard texts joined (a
// tenth as many under -short or the race detector).
func TestCountsMatchTiktokenGoOnRandomText(t *testing.T) {
	n := 5000
	if testing.Short() || racetest.Enabled {
		n = 500
	}
	hard := hardTexts()
	names := sortedKeys(hard)
	for _, enc := range encodings {
		ours, oracle := counters(t, enc)
		rng := rand.New(rand.NewSource(2))
		for i := 0; i < n; i++ {
			s := randomText(rng, 40)
			if i%2 == 1 {
				a, b := hard[names[rng.Intn(len(names))]], hard[names[rng.Intn(len(names))]]
				s = a[:rng.Intn(min(len(a), 200))] + s + b[len(b)-rng.Intn(min(len(b), 200)):]
			}
			require.Equal(t, oracle.CountText(s), ours.CountText(s), "%s: %.300q counted against tiktoken-go", enc, s)
		}
	}
}

// TestRankTablesMatchTheLoader checks the embedded tables against the rank
// files they were generated from, as tiktoken-go-loader reads them.
func TestRankTablesMatchTheLoader(t *testing.T) {
	for _, enc := range encodings {
		want, err := loader.NewOfflineLoader().LoadTiktokenBpe(enc + ".tiktoken")
		require.NoError(t, err)
		e, ok, err := bpe.Load(enc)
		require.True(t, ok, enc)
		require.NoError(t, err)
		ranks := e.Tokens()
		require.Len(t, ranks, len(want), enc)
		for tok, rank := range want {
			require.Equal(t, tok, ranks[rank], "%s: rank %d", enc, rank)
		}
	}
}

// FuzzCountTextMatchesTiktokenGo compares counts with tiktoken-go's on any
// text, in both encodings. Texts are cut to 4 KB: tiktoken-go's merge is
// quadratic in the length of a run.
func FuzzCountTextMatchesTiktokenGo(f *testing.F) {
	for _, s := range hardTexts() {
		f.Add(s[:min(len(s), 300)])
	}
	for _, s := range []string{"", "hello world", "today\n  \n", " \u00850", "'rer", "HELLOworld", "x\u0301'S", "\xff"} {
		f.Add(s)
	}
	type pair struct {
		ours   *tokens.Exact
		oracle *tiktokengo.Counter
	}
	var pairs []pair
	for _, enc := range encodings {
		ours, err := tokens.ForEncoding(enc)
		require.NoError(f, err)
		_, oracle := counters(f, enc)
		pairs = append(pairs, pair{ours, oracle})
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = s[:min(len(s), 4<<10)]
		for _, p := range pairs {
			require.Equal(t, p.oracle.CountText(s), p.ours.CountText(s), "%s: %.300q counted against tiktoken-go", p.ours.Encoding(), s)
		}
	})
}
