package main

import (
	"context"
	"encoding/json"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	openai "github.com/sashabaranov/go-openai"

	adapt "github.com/contextkit/compact/adapt/eino"
)

// chatModel is a small eino model component speaking the Chat Completions
// API through go-openai. It stands in for eino-ext's model components so
// the example has no dependency beyond eino; the adapter's conversions do
// the message mapping.
type chatModel struct {
	client *openai.Client
	tools  []openai.Tool
}

func newChatModel(baseURL string) *chatModel {
	cfg := openai.DefaultConfig("local")
	cfg.BaseURL = baseURL
	return &chatModel{client: openai.NewClientWithConfig(cfg)}
}

// WithTools returns the model with tools bound to every request.
func (m *chatModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	bound := *m
	bound.tools = nil
	for _, t := range tools {
		def := &openai.FunctionDefinition{Name: t.Name, Description: t.Desc}
		if t.ParamsOneOf != nil {
			s, err := t.ToJSONSchema()
			if err != nil {
				return nil, err
			}
			if def.Parameters, err = json.Marshal(s); err != nil {
				return nil, err
			}
		}
		bound.tools = append(bound.tools, openai.Tool{Type: openai.ToolTypeFunction, Function: def})
	}
	return &bound, nil
}

// Generate sends input as one chat completion request.
func (m *chatModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	conv, err := adapt.Convert(input)
	if err != nil {
		return nil, err
	}
	bound := m
	if o := model.GetCommonOptions(nil, opts...); len(o.Tools) > 0 {
		tm, err := m.WithTools(o.Tools)
		if err != nil {
			return nil, err
		}
		bound = tm.(*chatModel)
	}
	resp, err := m.client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model: modelName, Messages: conv.Messages, Tools: bound.tools})
	if err != nil {
		return nil, err
	}
	out, err := adapt.FromMessages([]openai.ChatCompletionMessage{resp.Choices[0].Message})
	if err != nil {
		return nil, err
	}
	msg := out[0]
	msg.ResponseMeta = &schema.ResponseMeta{FinishReason: string(resp.Choices[0].FinishReason),
		Usage: &schema.TokenUsage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens,
			TotalTokens: resp.Usage.TotalTokens}}
	return msg, nil
}

// Stream answers in one chunk.
func (m *chatModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}
