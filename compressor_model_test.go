package compact

import (
	"testing"

	"github.com/contextkit/compact/tokens"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The model table gives the window and the encoding; an explicit window
// wins; an unknown model keeps the default and Status says so.
func TestWithModelTakesTheWindowAndEncodingFromTheTable(t *testing.T) {
	tests := []struct {
		model    string
		opts     []Option
		window   int
		encoding string
		note     bool
	}{
		{"gpt-4", nil, 8192, tokens.EncodingCL100KBase, false},
		{"gpt-4.1", nil, 1_047_576, tokens.EncodingO200KBase, false},
		{"claude-opus-4", nil, 200_000, tokens.EncodingO200KBase, true},
		{"gpt-4o", []Option{WithContextWindow(50_000)}, 50_000, tokens.EncodingO200KBase, false},
		{"my-own-model", nil, DefaultContextWindow, tokens.EncodingO200KBase, true},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			st := New(append([]Option{WithModel(tt.model)}, tt.opts...)...).Status()
			assert.Equal(t, tt.window, st.Window)
			assert.Equal(t, tt.encoding, st.Encoding)
			assert.Equal(t, tt.note, st.ModelNote != "", st.ModelNote)
		})
	}
}

// SwitchModel moves both the window and the encoding.
func TestSwitchModelUpdatesWindowAndEncoding(t *testing.T) {
	c := New(WithModel("gpt-4"))
	text := "tiktoken is great! ünïcödé 日本語"
	require.Equal(t, tokens.EncodingCL100KBase, c.Status().Encoding)
	cl := c.Counter().CountText(text)
	c.SwitchModel("gpt-4o", 0)
	st := c.Status()
	assert.Equal(t, tokens.EncodingO200KBase, st.Encoding)
	assert.Equal(t, 128_000, st.Window)
	assert.Equal(t, newCounter(t, tokens.EncodingO200KBase).CountText(text), c.Counter().CountText(text))
	assert.NotEqual(t, cl, c.Counter().CountText(text), "the two encodings differ on this text")
	c.SwitchModel("gpt-4", 20_000)
	assert.Equal(t, 20_000, c.Status().Window, "an explicit window wins")
}

// A model whose tokenizer we do not have is counted with o200k_base times
// the table's factor, and the provider's reports tune the factor toward
// what it counts.
func TestUsageReportsCalibrateAModelWithoutOurTokenizer(t *testing.T) {
	c := New(WithModel("claude-sonnet-4"))
	st := c.Status()
	require.Greater(t, st.Calibration, 1.0)
	in := longSession(10)
	exact := tokens.CountMessages(newCounter(t, tokens.EncodingO200KBase), in)
	for i := 0; i < 12; i++ {
		c.ShouldCompressMessages(in)
		c.UpdateUsage(Usage{PromptTokens: exact * 2})
	}
	assert.InDelta(t, 2.0, c.Status().Calibration, 0.05, "converges on the provider's count")
	assert.InDelta(t, exact*2, c.count(in), float64(exact)/20)

	openai := New(WithModel("gpt-4o"))
	openai.ShouldCompressMessages(in)
	openai.UpdateUsage(Usage{PromptTokens: exact * 2})
	assert.Equal(t, 1.0, openai.Status().Calibration, "an exact count is never calibrated")
}
