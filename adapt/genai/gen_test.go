package genai

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
)

// genHistory is a random agent conversation with every kind of part: user
// turns of text and data, model turns of thoughts, text, calls (with and
// without ids, in parallel) and server-side parts, user turns answering
// every call (in any order, by id or by name, with text around them), a
// pending call group at the end now and then. valid says whether it keeps
// the API's shape; when it is false, some contents are misplaced or
// orphaned on purpose.
func genHistory(r *rand.Rand, valid bool) History {
	word := func() string {
		words := []string{"build", "the", "flag", "error:", "retry", "budget", "config", "tests", "pass", "fail", "ok", "go"}
		n := 1 + r.IntN(40)
		if r.IntN(8) == 0 {
			n = 300 + r.IntN(600) // a long tool output now and then
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
	sig := func() []byte { return []byte(fmt.Sprintf("sig-%d", r.IntN(1000))) }
	data := func() *sdk.Part {
		switch r.IntN(4) {
		case 0:
			return &sdk.Part{InlineData: &sdk.Blob{MIMEType: "image/png", Data: []byte{0x89, 'P', byte(r.IntN(256))}}}
		case 1:
			return &sdk.Part{InlineData: &sdk.Blob{MIMEType: "audio/ogg", Data: []byte("OggS"), DisplayName: "memo.ogg"}}
		case 2:
			d := time.Duration(r.IntN(60)) * time.Second
			return &sdk.Part{FileData: &sdk.FileData{FileURI: "gs://b/clip.mp4", MIMEType: "video/mp4"},
				VideoMetadata: &sdk.VideoMetadata{StartOffset: d, EndOffset: d + time.Second}}
		}
		return &sdk.Part{FileData: &sdk.FileData{FileURI: "https://example.com/r.pdf", MIMEType: "application/pdf", DisplayName: "r.pdf"}}
	}
	var h History
	if r.IntN(3) > 0 {
		h.System = &sdk.Content{Role: sdk.RoleUser, Parts: []*sdk.Part{{Text: "You are an agent. " + word()}}}
	}
	turns := 2 + r.IntN(14)
	id := 0
	for t := 0; t < turns; t++ {
		u := &sdk.Content{Role: sdk.RoleUser, Parts: []*sdk.Part{{Text: word()}}}
		if r.IntN(4) == 0 {
			u.Parts = append(u.Parts, data())
		}
		if r.IntN(6) == 0 {
			u.Role = ""
		}
		h.Contents = append(h.Contents, u)
		for steps := r.IntN(4); ; steps-- {
			m := &sdk.Content{Role: sdk.RoleModel}
			if r.IntN(2) == 0 {
				m.Parts = append(m.Parts, &sdk.Part{Text: word(), Thought: true, ThoughtSignature: sig()})
			}
			if r.IntN(3) > 0 || steps <= 0 {
				m.Parts = append(m.Parts, &sdk.Part{Text: word()})
			}
			if r.IntN(8) == 0 {
				m.Parts = append(m.Parts, &sdk.Part{ExecutableCode: &sdk.ExecutableCode{Code: "print(1)", Language: sdk.LanguagePython}},
					&sdk.Part{CodeExecutionResult: &sdk.CodeExecutionResult{Outcome: sdk.OutcomeOK, Output: "1"}})
			}
			var calls []*sdk.FunctionCall
			if steps > 0 {
				withIDs := r.IntN(2) == 0
				for n := 1 + r.IntN(3); n > 0; n-- {
					fc := &sdk.FunctionCall{Name: []string{"read_file", "grep", "run"}[r.IntN(3)], Args: map[string]any{"arg": word()}}
					if withIDs {
						id++
						fc.ID = fmt.Sprintf("call_%d", id)
					}
					p := &sdk.Part{FunctionCall: fc}
					if len(calls) == 0 {
						p.ThoughtSignature = sig()
					}
					calls = append(calls, fc)
					m.Parts = append(m.Parts, p)
				}
			}
			if r.IntN(5) == 0 {
				m.Parts = append(m.Parts, &sdk.Part{ThoughtSignature: sig()})
			}
			h.Contents = append(h.Contents, m)
			if len(calls) == 0 {
				break
			}
			if t == turns-1 && r.IntN(3) == 0 {
				return h // the calls are still running
			}
			resp := &sdk.Content{Role: sdk.RoleUser}
			if r.IntN(5) == 0 {
				resp.Parts = append(resp.Parts, &sdk.Part{Text: "results:"})
			}
			// Answer each call once, in random order; by name alone unless
			// the call has an id (then by id, or by name half the time).
			for _, k := range r.Perm(len(calls)) {
				fc := calls[k]
				fr := &sdk.FunctionResponse{Name: fc.Name, Response: map[string]any{"output": word()}}
				if fc.ID != "" {
					fr.ID = fc.ID
				}
				if r.IntN(5) == 0 {
					fr.Response = map[string]any{"error": word(), "code": float64(r.IntN(500))}
				}
				resp.Parts = append(resp.Parts, &sdk.Part{FunctionResponse: fr})
			}
			if !valid && r.IntN(3) == 0 {
				resp.Parts = append(resp.Parts, &sdk.Part{FunctionResponse: &sdk.FunctionResponse{Name: "ghost"}})
			}
			h.Contents = append(h.Contents, resp)
		}
	}
	if !valid && len(h.Contents) > 1 {
		k := r.IntN(len(h.Contents))
		h.Contents = append(h.Contents[:k], h.Contents[k+1:]...)
	}
	return h
}

// generatedHistories is how many random histories each property checks.
const generatedHistories = 200

func TestEveryGeneratedHistoryRoundTripsUnchanged(t *testing.T) {
	for seed := uint64(0); seed < generatedHistories; seed++ {
		r := rand.New(rand.NewPCG(seed, 27))
		h := genHistory(r, seed%4 != 0)
		before := encode(t, h)
		requireIdentical(t, h, roundTrip(t, h))
		require.Equal(t, string(before), string(encode(t, h)), "seed %d: the input is not modified", seed)
	}
}

func TestEveryCompactionOfAGeneratedHistoryKeepsTheContracts(t *testing.T) {
	counter, err := tokens.ForModel("gpt-4o")
	require.NoError(t, err)
	compacted := 0
	for seed := uint64(0); seed < generatedHistories; seed++ {
		r := rand.New(rand.NewPCG(seed, 27))
		h := genHistory(r, true)
		require.NoError(t, Validate(h), "seed %d: the generator makes valid histories", seed)
		window := []int{600, 1500, 4000}[seed%3]
		engine := compact.New(compact.WithContextWindow(window), compact.WithTokenCounter(counter))
		out, res, err := Compress(context.Background(), engine, h, compact.Force())
		if err != nil {
			if !errors.Is(err, compact.ErrNoSavings) {
				require.ErrorIs(t, err, compact.ErrNothingToCompress, "seed %d", seed)
			}
			continue
		}
		compacted++
		requireCompactionContracts(t, h, out, res)
	}
	require.Greater(t, compacted, generatedHistories/2, "most generated histories compact")
}
