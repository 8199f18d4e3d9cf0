package tokens

import (
	openai "github.com/sashabaranov/go-openai"
)

// Message is one chat message in OpenAI's format: go-openai's type, the
// same type as compact.Message.
type Message = openai.ChatCompletionMessage

// Counter counts the tokens that text and chat messages take up in a
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
// This package's counters use OpenAI's chat format, whose costs are
// documented with [MessageTokens] and [ReplyPrimingTokens]. A counter for
// another provider may use its own.
type Counter interface {
	// CountText returns the number of tokens in s as plain text.
	CountText(s string) int

	// CountMessage returns the number of tokens m adds to a chat request.
	CountMessage(m Message) int
}

// CountMessages returns the tokens msgs take as a chat request: each message
// counted by tc, plus ReplyPrimingTokens. An empty history is no request and
// counts 0.
func CountMessages(tc Counter, msgs []Message) int {
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
	// without decoding it; [WithImageTokens] changes the figure.
	defaultImageTokens = 765

	// lowDetailImageTokens is what an image of detail "low" costs, whatever
	// its size, by OpenAI's vision pricing.
	lowDetailImageTokens = 85
)

// MessageTokens returns the tokens m adds to a chat request by the rules
// [Counter] states, with countText counting each piece of text and
// imageTokens what an image of detail "high" or "auto" costs. It is how
// this package's counters count a message; a Counter over another
// tokenizer can use it for its CountMessage.
//
// Each message costs 3 tokens of framing, a name 1 more, and each tool
// call 3 (the figures OpenAI's cookbook documents for its chat models).
// The content is Content when set, otherwise the parts, as compact.Text
// reads it; an image part costs 85 tokens at detail "low" (OpenAI's
// figure), imageTokens otherwise, and none of its placeholder text.
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
func messageTokens(tc Counter, m Message, imageTokens int) int {
	return MessageTokens(m, tc.CountText, imageTokens)
}

// isImagePart reports whether p is an image, as compact.Text decides it.
func isImagePart(p openai.ChatMessagePart) bool {
	return p.Type == openai.ChatMessagePartTypeImageURL || p.ImageURL != nil
}

func imageDetail(p openai.ChatMessagePart) openai.ImageURLDetail {
	if p.ImageURL == nil {
		return ""
	}
	return p.ImageURL.Detail
}

// NamedEncoding is implemented by counters that count with a named
// tiktoken encoding, as [Exact] does. Tool definitions cost more per
// function in cl100k_base (see [CountTools]), and a host's status line can
// say what it counts with.
type NamedEncoding interface {
	Encoding() string
}
