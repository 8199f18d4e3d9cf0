package compact

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
)

// inflate makes a random history worth pruning: data picks, per message,
// whether a tool result grows large (uniquely, or into one of two shared
// outputs, so duplicates occur), carries an image or is already a
// stand-in, and whether a call's arguments grow long (JSON with escapes and
// non-ASCII text, or plain text). msgs is not modified.
func inflate(msgs []Message, data []byte) []Message {
	out := Clone(msgs)
	if len(data) == 0 {
		return out
	}
	shared := [2]string{shellOutput("shared-a", 30, 1), shellOutput("shared-b", 60, 0)}
	for i := range out {
		b := data[i%len(data)]
		m := &out[i]
		switch {
		case m.Role == RoleTool:
			switch b % 7 {
			case 0, 1:
				*m = msg.ReplaceText(*m, strings.Repeat(Text(*m)+" ", 20+int(b)))
			case 2:
				*m = msg.ReplaceText(*m, shared[b>>7])
			case 3:
				*m = msg.ReplaceText(*m, "")
				m.MultiContent = []openai.ChatMessagePart{
					{Type: openai.ChatMessagePartTypeText, Text: shared[0]},
					{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "data:image/png;base64,AAAA"}},
				}
			case 4:
				*m = msg.ReplaceText(*m, prunedPrefix+" an earlier stand-in "+strings.Repeat("x", 600))
			}
		case m.Role == RoleAssistant && len(m.ToolCalls) > 0:
			for k := range m.ToolCalls {
				switch (b >> k) % 4 {
				case 0:
					v, _ := json.Marshal(map[string]any{"path": "a.go", "n": 1,
						"file_text": strings.Repeat("«ünïcödé» \"q\"\t\\ line\n", 10+int(b))})
					m.ToolCalls[k].Function.Arguments = string(v)
				case 1:
					m.ToolCalls[k].Function.Arguments = "raw " + strings.Repeat("text ", 100+int(b))
				}
			}
		}
	}
	return out
}

// fuzzPruneOptions picks Prune's settings from data.
func fuzzPruneOptions(data []byte, n int) []Option {
	at := func(i int) byte {
		if i < len(data) {
			return data[i]
		}
		return 0
	}
	opts := []Option{WithKeepToolUses(int(at(0) % 5))}
	if at(1)&1 == 0 {
		opts = append(opts, WithClearAtLeast(0))
	}
	if p := int(at(1)>>1) % 4; p > 0 {
		opts = append(opts, WithPressure(p*300))
	}
	switch at(2) % 3 {
	case 1:
		opts = append(opts, WithArgumentChars(200))
	case 2:
		opts = append(opts, WithArgumentChars(0))
	}
	if at(3)%2 == 1 && n > 0 {
		from := int(at(4)) % n
		opts = append(opts, pruneRange(from, from+int(at(5))%n))
	}
	if at(6)%4 == 3 {
		opts = append(opts, withPruneKinds(kindDeduplicated, kindImages, kindArguments))
	}
	return opts
}

// FuzzPrune: on random histories made worth pruning, Prune keeps its
// contracts (see checkPrune), never modifies its input and shares no memory
// with it.
func FuzzPrune(f *testing.F) {
	msgtest.Seeds(f)
	f.Add([]byte{0, 1, 4, 12, 3, 1, 4, 12, 3, 1, 4, 12, 3, 2, 3, 1, 3, 2, 3, 1})
	f.Add([]byte{16, 2, 1, 1, 0, 0, 0, 4, 5, 4, 5, 4, 6, 4, 5, 7, 4, 5, 4, 5, 3, 1, 7, 3, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		data = data[:min(len(data), maxFuzzMessages)]
		in, _ := RepairToolPairs(randomHistory(data))
		in = inflate(in, data)
		opts := fuzzPruneOptions(data, len(in))
		before := Clone(in)
		res := Prune(in, opts...)
		if !reflect.DeepEqual(before, in) {
			t.Fatal("input modified")
		}
		if err := checkPrune(in, res, opts...); err != nil {
			t.Fatalf("%v\nin: %s", err, roles(in))
		}
		for i := range res.Messages {
			res.Messages[i].Content += "!"
			for k := range res.Messages[i].MultiContent {
				res.Messages[i].MultiContent[k].Text += "!"
			}
			for k := range res.Messages[i].ToolCalls {
				res.Messages[i].ToolCalls[k].Function.Arguments += "!"
			}
		}
		if !reflect.DeepEqual(before, in) {
			t.Fatal("the result shares memory with the input")
		}
	})
}

// FuzzCompressPruned: a Compressor that prunes keeps every contract, on
// histories worth pruning, forced or not.
func FuzzCompressPruned(f *testing.F) {
	msgtest.Seeds(f)
	f.Add([]byte{16, 2, 1, 1, 0, 0, 0, 4, 5, 4, 5, 4, 6, 4, 5, 7, 4, 5, 4, 5, 3, 1, 7, 3, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		data = knownRoles(data[:min(len(data), maxFuzzMessages)])
		in, _ := RepairToolPairs(withSummary(data, randomHistory(data)))
		in = inflate(in, data)
		if Validate(in) != nil || len(in) == 0 {
			return
		}
		c := New(WithContextWindow(2000+int(data[0])*40), WithTokenCounter(tokens.Estimate{}),
			WithPruning(true), WithClearAtLeast(int(data[0]%2)*200), WithHeadMessages(int(data[0]%4)))
		var opts []CompressOption
		if data[0]&8 != 0 {
			opts = append(opts, Force())
		}
		compressAndCheck(t, c, in, opts...)
	})
}
