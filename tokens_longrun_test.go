package compact

import (
	"encoding/base64"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// longRunInputs are texts with runs longer than maxRunBytes, as tool output
// carries them.
func longRunInputs() map[string]string {
	rng := rand.New(rand.NewSource(1))
	blob := make([]byte, 24<<10)
	rng.Read(blob)
	hex := fmt.Sprintf("%x", blob[:4<<10])
	return map[string]string{
		"letters":         strings.Repeat("a", 8<<10),
		"mixed-case":      strings.Repeat("AbCdEfGhIj", 800),
		"base64":          base64.StdEncoding.EncodeToString(blob),
		"base64url":       base64.RawURLEncoding.EncodeToString(blob[:8<<10]),
		"hex":             hex,
		"separator":       strings.Repeat("=", 4<<10),
		"spaces":          strings.Repeat(" ", 4<<10),
		"newlines":        strings.Repeat("\n", 4<<10),
		"cjk":             strings.Repeat("你好世界", 600),
		"minified":        strings.Repeat("function(a,b){return a+b}", 200),
		"long word prose": "The file was " + strings.Repeat("very", 200) + " long, and then it ended.",
	}
}

// TestLongRunsAreCountedInPartsWithASmallOverCount measures the price of
// the quadratic guard against tiktoken unguarded: never fewer tokens, and at
// most one more per cut.
func TestLongRunsAreCountedInPartsWithASmallOverCount(t *testing.T) {
	for _, encName := range []string{EncodingO200KBase, EncodingCL100KBase} {
		c := newCounter(t, encName)
		enc, err := loadEncoding(encName)
		require.NoError(t, err)
		inputs := longRunInputs()
		names := make([]string, 0, len(inputs))
		for k := range inputs {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, name := range names {
			s := inputs[name]
			exact := len(enc.EncodeOrdinary(s))
			got := c.CountText(s)
			cuts := countCuts(s)
			t.Logf("%s %-15s %6d bytes %3d cuts: exact %5d, counted %5d (+%d, %.2f%%)",
				encName, name, len(s), cuts, exact, got, got-exact, 100*float64(got-exact)/float64(exact))
			assert.GreaterOrEqual(t, got, exact, "%s %s", encName, name)
			assert.LessOrEqual(t, got-exact, cuts, "%s %s: at most one token per cut", encName, name)
		}
	}
}

func countCuts(s string) int {
	n := 0
	for {
		cut := nextCut(s)
		if cut == len(s) {
			return n
		}
		n++
		s = s[cut:]
	}
}

func TestCutsFallOnRuneBoundariesWithinTheLimit(t *testing.T) {
	for name, s := range longRunInputs() {
		for rest := s; rest != ""; {
			cut := nextCut(rest)
			require.Positive(t, cut, name)
			require.True(t, utf8.RuneStart(rest[cut%len(rest)]) || cut == len(rest), "%s: cut inside a rune", name)
			rest = rest[cut:]
		}
	}
	assert.Equal(t, maxRunBytes, nextCut(strings.Repeat("a", 3*maxRunBytes)))
	assert.Equal(t, 85*3, nextCut(strings.Repeat("世", 200)), "a cut never splits a rune")
	assert.Equal(t, 10000, nextCut(strings.Repeat("7", 10000)), "digits are never cut")
}

// TestOrdinaryTextIsCountedExactly checks that the guard leaves real
// conversations alone: over every text in the transcripts, the count equals
// tiktoken's unguarded count wherever the text has no long run, and the
// few texts that have one are reported.
func TestOrdinaryTextIsCountedExactly(t *testing.T) {
	transcripts := loadTranscripts(t)
	c := newCounter(t, EncodingO200KBase)
	enc, err := loadEncoding(EncodingO200KBase)
	require.NoError(t, err)
	texts, withRuns, total, over := 0, 0, 0, 0
	for _, name := range sortedNames(transcripts) {
		for _, m := range transcripts[name] {
			for _, s := range messageTexts(m) {
				texts++
				got := c.CountText(s)
				if countCuts(s) == 0 {
					require.Equal(t, len(enc.EncodeOrdinary(s)), got, "%s: %.60q", name, s)
					total += got
					continue
				}
				withRuns++
				exact := len(enc.EncodeOrdinary(s))
				total += exact
				over += got - exact
			}
		}
	}
	t.Logf("%d texts, %d with a run over %d bytes; over-count %d of %d tokens", texts, withRuns, maxRunBytes, over, total)
	assert.LessOrEqual(t, float64(over), 0.001*float64(total))
}

// messageTexts returns every piece of text CountMessage counts in m.
func messageTexts(m Message) []string {
	out := []string{m.Role, m.Name, m.Content, m.Refusal, m.ReasoningContent, m.ToolCallID}
	for _, p := range m.MultiContent {
		out = append(out, p.Text)
	}
	for _, c := range m.ToolCalls {
		out = append(out, c.Function.Name, c.Function.Arguments)
	}
	return out
}

// A long run without boundaries (letters, base64, CJK) makes tiktoken-go's
// byte-pair merge quadratic: 100 KB of letters took it 7 s. The guard hands
// the encoder no run longer than maxRunBytes, which is what bounds the time
// (BenchmarkCountTextLongRun measures it); this test checks the bound
// itself rather than a wall clock, so a loaded machine cannot fail it.
func TestALongRunReachesTheEncoderInBoundedPieces(t *testing.T) {
	inputs := map[string]string{
		"100 KB of letters": strings.Repeat("a", 100<<10),
		"100 KB of base64":  base64.StdEncoding.EncodeToString(make([]byte, 75<<10)),
		"100 KB of CJK":     strings.Repeat("你", 100<<10/3),
		"100 KB of spaces":  strings.Repeat(" ", 100<<10),
		"100 KB of symbols": strings.Repeat("=", 100<<10),
	}
	for name, s := range inputs {
		longest := 0
		for rest := s; rest != ""; {
			cut := nextCut(rest)
			require.Positive(t, cut, name)
			longest = max(longest, longestRun(rest[:cut]))
			rest = rest[cut:]
		}
		assert.LessOrEqual(t, longest, maxRunBytes, "%s: a run of %d bytes reached the encoder", name, longest)
	}
	for _, encName := range []string{EncodingO200KBase, EncodingCL100KBase} {
		c := newCounter(t, encName)
		for name, s := range inputs {
			start := time.Now()
			n := c.CountText(s)
			t.Logf("%s %s: %d tokens in %v", encName, name, n, time.Since(start))
			assert.Positive(t, n)
		}
	}
}

// longestRun is the longest run of one character class in s, digits aside
// (the split patterns take digits three at a time).
func longestRun(s string) int {
	longest, start, class := 0, 0, -1
	for i, r := range s {
		if c := runeClass(r); c != class {
			start, class = i, c
		}
		if class != classNumber {
			longest = max(longest, i+utf8.RuneLen(r)-start)
		}
	}
	return longest
}
