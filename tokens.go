package compact

import (
	"encoding/binary"
	"hash/maphash"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// TokenCounter counts the tokens that text and chat messages take up in a
// model request. Compaction decides when and how much to fold by its counts.
//
// An implementation keeps these rules:
//   - It is safe for concurrent use by multiple goroutines.
//   - It is deterministic: the same input always gives the same count, and a
//     count is never negative.
//   - CountText counts s as plain text. Text that spells a special token,
//     such as "<|endoftext|>", is counted as the text it is.
//   - CountMessage counts everything m adds to a chat request, overhead
//     included: the per-message framing, the role, the name, the content
//     (text parts, and images at a per-image cost), refusal and reasoning
//     text, each tool call's function name, arguments and framing, and the
//     tool_call_id. The reply priming belongs to no message: CountMessages
//     adds it once per request.
//   - It never panics on any input and never modifies its input.
//
// This package's counters use OpenAI's chat format, whose costs are the
// constants tokensPerMessage, tokensPerName, tokensPerToolCall,
// ReplyPrimingTokens, defaultImageTokens and lowDetailImageTokens. A counter
// for another provider may use its own.
type TokenCounter interface {
	// CountText returns the number of tokens in s as plain text.
	CountText(s string) int

	// CountMessage returns the number of tokens m adds to a chat request.
	CountMessage(m Message) int
}

// CountMessages returns the tokens msgs take as a chat request: each message
// counted by tc, plus ReplyPrimingTokens. An empty history is no request and
// counts 0.
func CountMessages(tc TokenCounter, msgs []Message) int {
	if len(msgs) == 0 {
		return 0
	}
	n := ReplyPrimingTokens
	for i := range msgs {
		n += tc.CountMessage(msgs[i])
	}
	return n
}

// The costs of OpenAI's chat format beyond the text it carries. The first
// three are those OpenAI's cookbook documents for gpt-3.5-turbo, gpt-4,
// gpt-4o and gpt-4o-mini ("How to count tokens with tiktoken",
// num_tokens_from_messages), where they reproduce the prompt_tokens the API
// reports.
const (
	// tokensPerMessage is the framing every message costs, such as
	// <|start|>, the separator after the role, and <|end|>.
	tokensPerMessage = 3

	// tokensPerName is what a message's name costs besides its own text.
	tokensPerName = 1

	// ReplyPrimingTokens is the framing that primes the reply,
	// <|start|>assistant<|message|>, once per request.
	ReplyPrimingTokens = 3

	// tokensPerToolCall is the framing of one tool call (or legacy function
	// call) besides its function name and arguments. OpenAI does not publish
	// how it renders calls; this estimate charges each call the framing of a
	// message, as each is rendered as a message of its own in OpenAI's
	// published harmony format.
	tokensPerToolCall = 3

	// defaultImageTokens is what an image of detail "high" or "auto" costs:
	// one 1024x1024 image by OpenAI's vision pricing, which scales it to
	// 768x768 and charges 170 for each of its four 512-pixel tiles plus a
	// base of 85 (85 + 170*4 = 765). A counter cannot see an image's size
	// without decoding it; WithImageTokens changes the figure.
	defaultImageTokens = 765

	// lowDetailImageTokens is what an image of detail "low" costs, whatever
	// its size, by OpenAI's vision pricing.
	lowDetailImageTokens = 85
)

// defaultCacheSize is how many per-message counts a TiktokenCounter keeps
// unless withCacheSize says otherwise: enough for the histories of many
// concurrent sessions, at about 40 bytes an entry (2.5 MB when full).
const defaultCacheSize = 1 << 16

// TiktokenCounter is the exact TokenCounter: it counts with one of OpenAI's
// tiktoken encodings (o200k_base or cl100k_base), whose ranks are embedded
// in the binary, so it never needs the network. It is safe for concurrent
// use. Create one with NewTokenCounter or NewEncodingCounter; the zero value
// is not usable.
//
// Its counts of text are tiktoken's encode_ordinary counts, exactly: the
// package's own encoder splits text as each encoding's pattern does and
// byte-pair merges over its ranks as tiktoken does, in time that grows as
// n log n with the longest unbroken run (such as base64 or minified data),
// so no text makes it slow. Its counts of messages add the overhead OpenAI
// documents, which is exact for text messages and an estimate for tool
// calls (tokensPerToolCall) and images (defaultImageTokens).
//
// CountMessage remembers the count of each message it has seen, keyed by a
// hash of every field that affects it, so recounting a history that grew by
// one message tokenises only the new message. The memo is bounded (see
// withCacheSize). The hash is 64 bits with a per-counter random seed; two
// different messages share a count only by a collision of that hash. Each
// counter also remembers the counts of about a thousand short pieces of
// text that are not one token (identifiers, paths), by their bytes.
type TiktokenCounter struct {
	enc         *bpeEncoding
	pieces      *pieceCache
	encoding    string
	imageTokens int
	seed        maphash.Seed
	genSize     int // entries per memo generation; 0 disables the memo

	mu  sync.Mutex
	cur map[uint64]int // the generation being filled
	old map[uint64]int // the previous generation, read and promoted from
}

// NewTokenCounter returns an exact counter for model, using the encoding
// EncodingForModel names. Any model name works: an unknown one gets
// o200k_base, the encoding of every current OpenAI chat model.
//
// It reads [withCacheSize] and [WithImageTokens] and ignores other options.
func NewTokenCounter(model string, opts ...Option) (*TiktokenCounter, error) {
	return newTokenCounter(EncodingForModel(model), newConfig(opts))
}

// NewEncodingCounter returns an exact counter that uses the named encoding,
// EncodingO200KBase or EncodingCL100KBase. Any other name is an error that
// wraps ErrUnknownEncoding. The encoding is built from its embedded ranks on
// first use and shared by every counter in the process; building it takes
// a few milliseconds, once.
func NewEncodingCounter(encoding string, opts ...Option) (*TiktokenCounter, error) {
	return newTokenCounter(encoding, newConfig(opts))
}

// newTokenCounter is NewEncodingCounter with its options applied.
func newTokenCounter(encoding string, cfg config) (*TiktokenCounter, error) {
	enc, err := loadEncoding(encoding)
	if err != nil {
		return nil, err
	}
	genSize := 0
	if cfg.cacheSize > 0 {
		genSize = max(cfg.cacheSize/2, 1)
	}
	return &TiktokenCounter{
		enc:         enc,
		pieces:      new(pieceCache),
		encoding:    encoding,
		imageTokens: cfg.imageTokens,
		seed:        maphash.MakeSeed(),
		genSize:     genSize,
	}, nil
}

// Encoding returns the name of the encoding c counts with.
func (c *TiktokenCounter) Encoding() string { return c.encoding }

// CountText returns the number of tokens in s as plain text.
func (c *TiktokenCounter) CountText(s string) int {
	if s == "" {
		return 0
	}
	return c.enc.count(s, c.pieces)
}

// CountMessage returns the number of tokens m adds to a chat request,
// remembering it for the next time c sees the same message.
func (c *TiktokenCounter) CountMessage(m Message) int {
	if c.genSize == 0 {
		return messageTokens(c, m, c.imageTokens)
	}
	key := c.hash(m)
	if n, ok := c.lookup(key); ok {
		return n
	}
	n := messageTokens(c, m, c.imageTokens)
	c.mu.Lock()
	c.putLocked(key, n)
	c.mu.Unlock()
	return n
}

func (c *TiktokenCounter) lookup(key uint64) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.cur[key]; ok {
		return n, true
	}
	if n, ok := c.old[key]; ok {
		c.putLocked(key, n)
		return n, true
	}
	return 0, false
}

func (c *TiktokenCounter) putLocked(key uint64, n int) {
	if len(c.cur) >= c.genSize {
		c.old, c.cur = c.cur, nil
	}
	if c.cur == nil {
		c.cur = make(map[uint64]int)
	}
	c.cur[key] = n
}

// hash returns the memo key of m: a hash of every field messageTokens
// reads, each written with a tag and its length, so that moving text from
// one field to another, or across a field boundary, changes the key.
func (c *TiktokenCounter) hash(m Message) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	hashField(&h, 'r', m.Role)
	hashField(&h, 'n', m.Name)
	hashField(&h, 'c', m.Content)
	for _, p := range m.MultiContent {
		if isImagePart(p) {
			hashField(&h, 'i', string(imageDetail(p)))
		} else {
			hashField(&h, 't', p.Text)
		}
	}
	hashField(&h, 'x', m.Refusal)
	hashField(&h, 'z', m.ReasoningContent)
	if fc := m.FunctionCall; fc != nil {
		hashField(&h, 'F', fc.Name)
		hashField(&h, 'A', fc.Arguments)
	}
	for _, tc := range m.ToolCalls {
		hashField(&h, 'T', tc.Function.Name)
		hashField(&h, 'a', tc.Function.Arguments)
	}
	hashField(&h, 'd', m.ToolCallID)
	return h.Sum64()
}

func hashField(h *maphash.Hash, tag byte, s string) {
	var hdr [9]byte
	hdr[0] = tag
	binary.LittleEndian.PutUint64(hdr[1:], uint64(len(s)))
	_, _ = h.Write(hdr[:])
	_, _ = h.WriteString(s)
}

// MessageTokens returns the tokens m adds to a chat request by the rules
// TokenCounter states, with countText counting each piece of text and
// imageTokens what an image of detail "high" or "auto" costs. It is how
// this package's counters count a message; a TokenCounter over another
// tokenizer can use it for its CountMessage.
//
// Content is Content when set, otherwise the parts, as Text reads it; an
// image part costs 85 tokens at detail "low" (OpenAI's figure), imageTokens
// otherwise, and none of its placeholder text.
func MessageTokens(m Message, countText func(string) int, imageTokens int) int {
	n := tokensPerMessage + countText(m.Role)
	if m.Name != "" {
		n += tokensPerName + countText(m.Name)
	}
	if m.Content != "" || len(m.MultiContent) == 0 {
		n += countText(m.Content)
	} else {
		for _, p := range m.MultiContent {
			switch {
			case !isImagePart(p):
				n += countText(p.Text)
			case imageDetail(p) == openai.ImageURLDetailLow:
				n += lowDetailImageTokens
			default:
				n += imageTokens
			}
		}
	}
	n += countText(m.Refusal) + countText(m.ReasoningContent)
	if fc := m.FunctionCall; fc != nil {
		n += tokensPerToolCall + countText(fc.Name) + countText(fc.Arguments)
	}
	for _, call := range m.ToolCalls {
		n += tokensPerToolCall + countText(call.Function.Name) + countText(call.Function.Arguments)
	}
	return n + countText(m.ToolCallID)
}

// messageTokens counts m with tc counting text and imageTokens the cost of
// an image that is not low detail.
func messageTokens(tc TokenCounter, m Message, imageTokens int) int {
	return MessageTokens(m, tc.CountText, imageTokens)
}

// isImagePart reports whether p is an image, as partText and hasImages
// decide it.
func isImagePart(p openai.ChatMessagePart) bool {
	return p.Type == openai.ChatMessagePartTypeImageURL || p.ImageURL != nil
}

func imageDetail(p openai.ChatMessagePart) openai.ImageURLDetail {
	if p.ImageURL == nil {
		return ""
	}
	return p.ImageURL.Detail
}
