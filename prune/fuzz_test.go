package prune

import (
	"reflect"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/require"
)

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
		opts = append(opts, WithRange(from, from+int(at(5))%n))
	}
	if f := int(at(7)) % 4; f > 0 {
		opts = append(opts, WithFit(f*400))
	}
	if at(6)%4 == 3 {
		opts = append(opts, WithKinds(Deduplicated, ImagesReplaced, ArgumentsShortened))
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
		in, _ := msg.RepairToolPairs(randomHistory(data))
		in = msgtest.Inflate(in, data)
		opts := fuzzPruneOptions(data, len(in))
		before := msg.Clone(in)
		res := Apply(in, opts...)
		require.True(t, reflect.DeepEqual(before, in), "input modified")
		require.NoError(t, checkPrune(in, res, opts...), "\nin: %s", roles(in))
		for i := range res.Messages {
			res.Messages[i].Content += "!"
			for k := range res.Messages[i].MultiContent {
				res.Messages[i].MultiContent[k].Text += "!"
			}
			for k := range res.Messages[i].ToolCalls {
				res.Messages[i].ToolCalls[k].Function.Arguments += "!"
			}
		}
		require.True(t, reflect.DeepEqual(before, in), "the result shares memory with the input")
	})
}
