package align

import (
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"

	"github.com/contextkit/compact"
)

func TestSetContentNeverSetsBothFields(t *testing.T) {
	var m compact.Message
	SetContent(&m, []openai.ChatMessagePart{TextPart("one")})
	assert.Equal(t, compact.Message{Content: "one"}, m)
	m = compact.Message{}
	SetContent(&m, []openai.ChatMessagePart{ImagePart("u", openai.ImageURLDetailLow)})
	assert.Empty(t, m.Content)
	assert.True(t, HasImage(m))
	m = compact.Message{}
	SetContent(&m, nil)
	assert.Equal(t, compact.Message{}, m)
}

// usageEngine is a ContextEngine that cannot preflight.
type usageEngine struct{ compact.ContextEngine }

func TestShouldCompressAsksThePreflightOrTheUsage(t *testing.T) {
	long := []compact.Message{{Role: compact.RoleUser, Content: strings.Repeat("word ", 10_000)}}
	assert.True(t, ShouldCompress(compact.New(compact.WithContextWindow(8000)), long), "the Compressor counts the history")
	engine := compact.New(compact.WithContextWindow(8000))
	assert.False(t, ShouldCompress(usageEngine{engine}, long), "another engine knows only the usage it was told")
	engine.UpdateUsage(compact.Usage{PromptTokens: 7900})
	assert.True(t, ShouldCompress(usageEngine{engine}, nil))
}

func TestBothContentsIsTheErrorValidateGives(t *testing.T) {
	msgs := []compact.Message{
		{Role: compact.RoleUser, Content: "a"},
		{Role: compact.RoleUser, Content: "AAA", MultiContent: []openai.ChatMessagePart{TextPart("BBB")}},
	}
	err := BothContents(msgs)
	assert.Equal(t, compact.Validate(msgs), err)
	assert.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.NoError(t, BothContents(msgs[:1]))
}

func TestEncodesNullFindsTheNilPartsOfSDKs(t *testing.T) {
	var nilPart *openai.ChatMessagePart
	assert.True(t, EncodesNull(nil))
	assert.True(t, EncodesNull(nilPart))
	assert.False(t, EncodesNull(TextPart("")))
	assert.False(t, EncodesNull(func() {}), "a value that does not encode is not null")
}
