package langchaingo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
)

// genHistory is a random agent conversation with every part type: a system
// prompt now and then, human and generic turns of text, image URLs and
// binary data, AI turns of text and parallel tool calls (by value or by
// pointer), their responses in one tool message or one each, in any order,
// and now and then a pending call group at the end. With valid false some
// messages are dropped, so calls and responses may be orphaned.
func genHistory(r *rand.Rand, valid bool) []llms.MessageContent {
	text := func() string {
		words := []string{"build", "the", "flag", "error:", "retry", "budget", "config", "tests", "pass", "fail", "ok"}
		n := 1 + r.IntN(40)
		if r.IntN(8) == 0 {
			n = 300 + r.IntN(600)
		}
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	var out []llms.MessageContent
	if r.IntN(3) > 0 {
		out = append(out, llms.TextParts(llms.ChatMessageTypeSystem, "You are an agent. "+text()))
	}
	id := 0
	turns := 2 + r.IntN(12)
	for t := 0; t < turns; t++ {
		h := msg(llms.ChatMessageTypeHuman, llms.TextPart(text()))
		switch r.IntN(6) {
		case 0:
			h.Parts = append(h.Parts, llms.ImageURLPart("https://example.com/a.png"))
		case 1:
			h.Parts = append(h.Parts, llms.BinaryPart("image/png", []byte{0x89, 'P', byte(r.IntN(256))}))
		case 2:
			h.Parts = append(h.Parts, llms.BinaryPart("application/pdf", []byte("%PDF")))
		case 3:
			h.Role = llms.ChatMessageTypeGeneric
		}
		out = append(out, h)
		for steps := r.IntN(4); steps > 0; steps-- {
			ai := msg(llms.ChatMessageTypeAI)
			if r.IntN(2) == 0 {
				ai.Parts = append(ai.Parts, llms.TextPart(text()))
			}
			var ids []string
			for n := 1 + r.IntN(3); n > 0; n-- {
				id++
				c := call(fmt.Sprintf("call_%d", id), []string{"read_file", "grep", "run"}[r.IntN(3)], fmt.Sprintf(`{"arg":%q}`, text()))
				ids = append(ids, c.ID)
				if r.IntN(4) == 0 {
					ai.Parts = append(ai.Parts, &c)
				} else {
					ai.Parts = append(ai.Parts, c)
				}
			}
			out = append(out, ai)
			if t == turns-1 && steps == 1 && r.IntN(3) == 0 {
				return out // the calls are still running
			}
			together := r.IntN(2) == 0
			tool := msg(llms.ChatMessageTypeTool)
			for _, k := range r.Perm(len(ids)) {
				resp := response(ids[k], "tool", text())
				if together {
					tool.Parts = append(tool.Parts, resp)
					continue
				}
				out = append(out, msg(llms.ChatMessageTypeTool, resp))
			}
			if together {
				out = append(out, tool)
			}
		}
		out = append(out, msg(llms.ChatMessageTypeAI, llms.TextPart(text())))
	}
	if !valid && len(out) > 1 {
		k := r.IntN(len(out))
		out = append(out[:k], out[k+1:]...)
	}
	return out
}

// generatedHistories is how many random histories each property checks.
const generatedHistories = 200

func TestEveryGeneratedHistoryRoundTripsUnchanged(t *testing.T) {
	for seed := uint64(0); seed < generatedHistories; seed++ {
		msgs := genHistory(rand.New(rand.NewPCG(seed, 27)), seed%4 != 0)
		before := encode(t, msgs)
		requireIdentical(t, msgs, roundTrip(t, msgs))
		require.Equal(t, string(before), string(encode(t, msgs)), "seed %d: the input is not modified", seed)
	}
}

func TestEveryCompactionOfAGeneratedHistoryKeepsTheContracts(t *testing.T) {
	counter, err := tokens.ForModel("gpt-4o")
	require.NoError(t, err)
	compacted := 0
	for seed := uint64(0); seed < generatedHistories; seed++ {
		msgs := genHistory(rand.New(rand.NewPCG(seed, 27)), true)
		require.NoError(t, Validate(msgs), "seed %d: the generator makes valid histories", seed)
		window := []int{600, 1500, 4000}[seed%3]
		out, res, err := Compress(context.Background(),
			compact.New(compact.WithContextWindow(window), compact.WithTokenCounter(counter)), msgs, compact.Force())
		if err != nil {
			if !errors.Is(err, compact.ErrNoSavings) {
				require.ErrorIs(t, err, compact.ErrNothingToCompress, "seed %d", seed)
			}
			continue
		}
		compacted++
		requireCompactionContracts(t, msgs, out, res)
	}
	require.Greater(t, compacted, generatedHistories/2, "most generated histories compact")
}
