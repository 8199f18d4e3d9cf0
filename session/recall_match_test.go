package session

import (
	"math/rand"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLineLiterals: which expressions run only on the lines holding a
// literal, and with which literals.
func TestLineLiterals(t *testing.T) {
	for _, tc := range []struct {
		re   string
		want []string
	}{
		{`[0-9a-f]{4} ?\)$`, []string{")"}},
		{`^\s*at \w+`, nil},                            // \s holds the line break
		{`error: [^;]+;`, nil},                         // so does [^;]
		{`error: [^;\n]+;`, []string{"error: "}},       // not this one
		{`(KeyError|ValueError): \S+`, []string{": "}}, // one text over two
		{`a.b`, []string{"a"}},                         // . stops at line breaks
		{`(?s)a.b`, nil},                               // not with s
		{`\Aerror`, nil},                               // the text's start is no line's
		{`error\z`, nil},                               // nor its end
		{`(?i)error: \d+`, nil},                        // folded literals are not looked for
		{`\d+`, nil},                                   // nothing to look for
		{`x\ny`, nil},
	} {
		m, err := newMatcher(tc.re, true)
		require.NoError(t, err, tc.re)
		assert.Equal(t, tc.want, m.lineLits, tc.re)
	}
}

// TestLineHitsAgreeWithTheWholeText: running an expression line by line,
// on the lines holding its literal, finds exactly the hits that running it
// over the whole text finds.
func TestLineHitsAgreeWithTheWholeText(t *testing.T) {
	patterns := []string{
		`[0-9a-f]{4} ?\)$`, `^[0-9]+\)`, `\b(ab|ba)\)`, `a+\)`, `(ab|\)\))x?`,
		`[^a\n]\)`, `\)$`, `^\)`, `b.\)`, `(a|b)+c`,
	}
	rng := rand.New(rand.NewSource(7))
	alphabet := "ab0f9 )\nc\n"
	for _, p := range patterns {
		m, err := newMatcher(p, true)
		require.NoError(t, err, p)
		require.NotNil(t, m.lineLits, "%s should take the line path", p)
		whole := &matcher{re: m.re}
		for i := 0; i < 3000; i++ {
			var b strings.Builder
			for n := rng.Intn(60); n > 0; n-- {
				b.WriteByte(alphabet[rng.Intn(len(alphabet))])
			}
			text := b.String()
			limit := 1 + rng.Intn(4)
			gotHits, gotMore := m.hits(text, limit, nil)
			wantHits, wantMore := whole.hits(text, limit, nil)
			require.Equal(t, wantHits, gotHits, "%s on %q", p, text)
			require.Equal(t, wantMore, gotMore, "%s on %q", p, text)
		}
	}
}

// TestWithinLine covers the node kinds withinLine tells apart.
func TestWithinLine(t *testing.T) {
	for re, want := range map[string]bool{
		`abc`: true, `a\nb`: false, `[a-z]+`: true, `[\x00-\x7f]`: false, `.`: true, `(?s).`: false,
		`(?m)^a$`: true, `\Aa`: false, `a\z`: false, `\ba\B`: true, `(a|[^b])*`: false,
	} {
		tree, err := syntax.Parse(re, syntax.Perl)
		require.NoError(t, err, re)
		assert.Equal(t, want, withinLine(tree), re)
	}
}
