package extractive

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/textcut"
	"github.com/contextkit/compact/redact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fidelityTarget is the generous target the fidelity check summarises at,
// so that what it measures is extraction, not trimming.
const fidelityTarget = 4000

// fidelityFloor is the share of each category a summary must keep.
const fidelityFloor = 0.90

// wantFacts is what a summary of msgs should carry, computed from the raw
// transcript with the same rules the summarizer uses but none of its caps:
// the latest real user message, every path a tool call's arguments name
// (path keys and paths inside commands), every error line of tool output
// and user text. Each is in the form the summary writes it.
type wantFacts struct {
	ask    string
	paths  []string
	errors []string
}

func factsOf(msgs []Message) wantFacts {
	var f wantFacts
	lim := New(Limits{}, nil).resolvedLimits(fidelityTarget)
	seen := map[string]bool{}
	addPath := func(p string) {
		p = itemText(normPath(p), lim.ItemChars)
		if !seen["p"+p] {
			seen["p"+p] = true
			f.paths = append(f.paths, p)
		}
	}
	addErrors := func(text string) {
		for _, e := range errorLines(text) {
			e = itemText(e, lim.ItemChars)
			if !seen["e"+e] {
				seen["e"+e] = true
				f.errors = append(f.errors, e)
			}
		}
	}
	for _, m := range msgs {
		switch m.Role {
		case msg.RoleUser:
			if !msg.IsRealUser(m) {
				continue
			}
			_, rest, _ := msg.SplitMerged(m)
			if t := strings.TrimSpace(msg.Text(rest)); t != "" {
				f.ask = t
				addErrors(t)
			}
		case msg.RoleAssistant:
			for _, c := range m.ToolCalls {
				var args map[string]any
				_ = json.Unmarshal([]byte(c.Function.Arguments), &args)
				for _, p := range argPaths(args) {
					addPath(p)
				}
				if classifyTool(c.Function.Name, args) == toolShell {
					commandPaths(commandOf(args, c.Function.Arguments), isCodeArg(args), func(p string, _ int) { addPath(p) })
				}
			}
		case msg.RoleTool, "function":
			addErrors(msg.Text(m))
		}
	}
	return f
}

// rate is the share of want found in have, 1 when want is empty.
func rate(want []string, have map[string]bool) (float64, []string) {
	var missing []string
	for _, w := range want {
		if !have[w] {
			missing = append(missing, w)
		}
	}
	if len(want) == 0 {
		return 1, nil
	}
	return 1 - float64(len(missing))/float64(len(want)), missing
}

// normLines trims the end of every line, as the summary's quoting does.
func normLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}

// TestExtractiveFidelity checks, on every transcript we have, that a summary
// at a generous target keeps the latest ask (its head at least), at least
// 90% of the paths tool calls touched and at least 90% of the error lines.
// It logs the measured rates; run with -v to see them.
func TestExtractiveFidelity(t *testing.T) {
	all := allTranscripts(t)
	s := New(Limits{}, nil)
	var sum struct{ asks, askHits, paths, pathHits, errs, errHits int }
	for _, name := range sortedNames(all) {
		msgs := all[name]
		t.Run(name, func(t *testing.T) {
			out, err := s.Summarize(context.Background(), Request{Turns: msgs, TargetTokens: fidelityTarget})
			require.NoError(t, err)
			got, ok := parseExtractive(out)
			require.True(t, ok, "the summary reads back as extractive:\n%s", out)
			want := factsOf(msgs)

			if want.ask != "" {
				sum.asks++
				head := textcut.Head(normLines(redact.String(normalizeBlock(want.ask))), 200)
				if assert.True(t, strings.HasPrefix(got.blocks[secTask], strings.TrimSpace(head)),
					"current task starts with the latest ask's head %q\ngot %q", head, textcut.Head(got.blocks[secTask], 300)) {
					sum.askHits++
				}
			}
			files := map[string]bool{}
			for _, sec := range []int{secModified, secRead, secReferenced} {
				for _, it := range got.items[sec] {
					files[it] = true
					if rest, ok := strings.CutPrefix(it, "./"); ok {
						files[rest] = true // x.go is listed as ./x.go when that was written too
					}
				}
			}
			pr, missing := rate(want.paths, files)
			sum.paths += len(want.paths)
			sum.pathHits += len(want.paths) - len(missing)
			assert.GreaterOrEqual(t, pr, fidelityFloor, "paths kept %.2f, missing %q", pr, missing)

			errs := map[string]bool{}
			for _, it := range got.items[secErrors] {
				errs[it] = true
			}
			er, missing := rate(want.errors, errs)
			sum.errs += len(want.errors)
			sum.errHits += len(want.errors) - len(missing)
			assert.GreaterOrEqual(t, er, fidelityFloor, "error lines kept %.2f, missing %q", er, missing)
			t.Logf("paths %d/%d errors %d/%d, %d tokens", len(want.paths)-countMissing(want.paths, files), len(want.paths),
				len(want.errors)-countMissing(want.errors, errs), len(want.errors), (len(out)+3)/4)
		})
	}
	t.Logf("fidelity over %d transcripts: latest ask %d/%d, tool-call paths %d/%d (%.1f%%), error lines %d/%d (%.1f%%)",
		len(all), sum.askHits, sum.asks, sum.pathHits, sum.paths, pct(sum.pathHits, sum.paths), sum.errHits, sum.errs, pct(sum.errHits, sum.errs))
}

// TestExtractiveFidelityOnAChainedHistory measures the same rates on every
// transcript chained into one history, where the caps bite: a summary of a
// long history keeps the newest facts, so the rates are logged, and what is
// asserted is that the latest ask and the newest paths and errors survive.
func TestExtractiveFidelityOnAChainedHistory(t *testing.T) {
	all := allTranscripts(t)
	var msgs []Message
	for _, name := range sortedNames(all) {
		msgs = append(msgs, all[name]...)
	}
	out, err := New(Limits{}, nil).Summarize(context.Background(), Request{Turns: msgs, TargetTokens: fidelityTarget})
	require.NoError(t, err)
	got, ok := parseExtractive(out)
	require.True(t, ok)
	want := factsOf(msgs)
	files := map[string]bool{}
	for _, sec := range []int{secModified, secRead, secReferenced} {
		for _, it := range got.items[sec] {
			files[it] = true
		}
	}
	errs := map[string]bool{}
	for _, it := range got.items[secErrors] {
		errs[it] = true
	}
	pr, _ := rate(want.paths, files)
	er, _ := rate(want.errors, errs)
	t.Logf("chained history of %d messages, summary %d tokens: tool-call paths %d, kept %.1f%%; error lines %d, kept %.1f%%",
		len(msgs), (len(out)+3)/4, len(want.paths), 100*pr, len(want.errors), 100*er)
	assert.True(t, strings.HasPrefix(got.blocks[secTask], textcut.Head(normLines(redact.String(normalizeBlock(want.ask))), 100)))
	if n := len(want.paths); n > 0 {
		assert.True(t, files[want.paths[n-1]], "the newest path %q is kept", want.paths[n-1])
	}
	if n := len(want.errors); n > 0 {
		assert.True(t, errs[want.errors[n-1]], "the newest error %q is kept", want.errors[n-1])
	}
}

func countMissing(want []string, have map[string]bool) int {
	_, m := rate(want, have)
	return len(m)
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}
