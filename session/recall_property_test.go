package session

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
)

// Every recall answer, for any arguments, is valid JSON within its budget:
// random calls, built from the tools' own fields with values at and past
// every edge (numbers near the int64 maximum, long strings of characters
// that escape or split into many tokens, wrong types, unknown fields), on
// an archive full of such text, with an exact tokenizer and a coarse one,
// at the smallest budget and the default.
func TestRecallAnswersAreJSONWithinBudgetForAnyArguments(t *testing.T) {
	o200k, err := tokens.ForModel("gpt-4o")
	require.NoError(t, err)
	calls := 400
	if testing.Short() {
		calls = 100
	}
	rng := rand.New(rand.NewSource(23))
	var hist []compact.Message
	for i := 0; i < 12; i++ {
		hist = append(hist, agentHistory(fmt.Sprintf("p%d", i), 2)...)
		hist = append(hist, user(randomText(rng, 3000)), asst(randomText(rng, 400)),
			toolCall(fmt.Sprintf("r%d", i), ToolSearch, `{"query":"needle <div>"}`),
			result(fmt.Sprintf("r%d", i), `{"matches":[{"seq":3,"hits":[{"snippet":"a needle in <div>"}]}]}`))
	}
	for _, budget := range []int{minToolBudget, DefaultToolBudget} {
		for name, tc := range map[string]tokens.Counter{"o200k": o200k, "bytes": byteCounter{}} {
			s := newRecallSession(t, "prop", nil, WithTokenCounter(tc), WithToolBudget(budget))
			mustAppend(t, s, hist[:len(hist)/2]...)
			_, err := s.Compress(t.Context(), compact.Force())
			require.NoError(t, err)
			mustAppend(t, s, hist[len(hist)/2:]...)
			tools := s.Tools()
			for i := 0; i < calls; i++ {
				tool := tools[rng.Intn(len(tools))]
				args := randomArgs(rng, tool.Definition.Function.Name)
				out, err := tool.Handle(t.Context(), args)
				require.NoError(t, err, "%s: %.300s", tool.Definition.Function.Name, args)
				require.NoError(t, checkAnswer(tc, budget, out), "%s budget %d: %s %.300s", name, budget, tool.Definition.Function.Name, args)
			}
		}
	}
}

// randomArgs builds the arguments of a call of tool: mostly its own
// fields, each with a value of the right type or not, sometimes an unknown
// field or text that is no JSON.
func randomArgs(rng *rand.Rand, tool string) string {
	if rng.Intn(20) == 0 {
		return randomText(rng, 200)
	}
	var fields []string
	switch tool {
	case ToolSearch:
		fields = pick(rng, "query", "query", "regex", "role", "tool", "limit", "cursor")
	case ToolExpand:
		// Mostly a range or a list, at most one point in it; now and then
		// anything.
		fields = pick(rng, "from", "from", "to", "line", "cursor")
		if rng.Intn(2) == 0 {
			fields = pick(rng, "seq", "seq", "offset", "cursor")
		}
		if rng.Intn(8) == 0 {
			fields = pick(rng, "from", "to", "seq", "line", "offset", "cursor")
		}
	case ToolDescribe:
		fields = pick(rng, "cursor")
	}
	var parts []string
	for _, f := range fields {
		parts = append(parts, strconv.Quote(f)+":"+randomValue(rng, f))
	}
	if rng.Intn(15) == 0 {
		parts = append(parts, quoteJSON(rng, randomText(rng, 300))+":1")
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// pick returns each of fields with even odds, each at most once.
func pick(rng *rand.Rand, fields ...string) []string {
	var out []string
	for _, f := range fields {
		if rng.Intn(2) == 0 && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// words are queries the archive holds, some of them many times.
var words = []string{"needle", "FAIL", "undefined: symbol", "pkg1", "<", "<div>", "&amp;", "é", "ß", ".", "a", "🦀", "\n", "(?i)fail.*pkg", "^ok"}

// randomValue is a JSON value for field: usually of its type, near an
// edge.
func randomValue(rng *rand.Rand, field string) string {
	if rng.Intn(12) == 0 {
		return []string{`null`, `true`, `"x"`, `[1,2]`, `{}`, `1e400`, `-0`, `1.5`}[rng.Intn(8)]
	}
	switch field {
	case "query", "tool", "role":
		switch {
		case field == "role" && rng.Intn(2) == 0:
			return strconv.Quote([]string{"user", "assistant", "tool", "system", "developer"}[rng.Intn(5)])
		case field == "tool" && rng.Intn(2) == 0:
			return strconv.Quote([]string{"bash", ToolSearch, ToolExpand}[rng.Intn(3)])
		case field == "query" && rng.Intn(2) == 0:
			return quoteJSON(rng, words[rng.Intn(len(words))])
		}
		return quoteJSON(rng, randomText(rng, []int{3, 6, 20, 300, 1000, 1200}[rng.Intn(6)]))
	case "regex":
		return []string{"true", "false"}[rng.Intn(2)]
	case "seq":
		n := rng.Intn(120)
		nums := make([]string, n)
		for i := range nums {
			nums[i] = strconv.Itoa(1 + rng.Intn(80))
		}
		if n > 0 && rng.Intn(4) == 0 {
			nums[rng.Intn(n)] = randomNumber(rng)
		}
		return "[" + strings.Join(nums, ",") + "]"
	case "cursor":
		c := randomNumber(rng)
		if rng.Intn(2) == 0 {
			c += ":" + randomNumber(rng)
		}
		if rng.Intn(6) == 0 {
			return c // a number, or a text no JSON reader takes
		}
		return strconv.Quote(c)
	}
	return randomNumber(rng)
}

// randomNumber is an integer from the small ones a log holds to past the
// int64 maximum.
func randomNumber(rng *rand.Rand) string {
	switch rng.Intn(12) {
	case 0:
		return strconv.FormatInt(math.MaxInt64-rng.Int63n(100), 10)
	case 1:
		return strconv.FormatInt(maxSeq-rng.Int63n(3)+1, 10)
	case 2:
		return "-" + strconv.Itoa(rng.Intn(5))
	case 3:
		return "92233720368547758070"
	case 4:
		return strconv.Itoa(rng.Intn(100000))
	}
	return strconv.Itoa(1 + rng.Intn(80))
}

// randomText is up to n bytes drawn from pieces that escape in JSON, fold
// differently in case, or take many tokens each.
func randomText(rng *rand.Rand, n int) string {
	pieces := []string{"<", ">", "&", "<div>", "&amp;", `"`, `\`, "\n", "\t", "é", "ß", "İ", "‹", "🦀", "\u2028",
		"\x00", "\xff", "needle", "FAIL", "pkg1", "(", "*", "+", ".", "[", "undefined", " ", "a", "9"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(pieces[rng.Intn(len(pieces))])
	}
	return b.String()
}

// quoteJSON writes s as a JSON string; now and then with its bytes as Go
// quotes them, which JSON does not always read.
func quoteJSON(rng *rand.Rand, s string) string {
	if rng.Intn(10) == 0 {
		return strconv.Quote(s)
	}
	b, err := marshalJSON(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
