package anthropic

import (
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
)

// This file reads and writes turns. In SDK v2 a turn (sdk.MessageParam) is
// a union of a user, an assistant and a system message; the rest of the
// package works on a turn's role and its blocks.

// role is a turn's role.
type role string

// The roles a turn can have.
const (
	roleUser      role = "user"
	roleAssistant role = "assistant"
	roleSystem    role = "system"
)

// turnRole is the role of m's variant; "" when m has none.
func turnRole(m sdk.MessageParam) role {
	switch {
	case m.OfUser != nil:
		return roleUser
	case m.OfAssistant != nil:
		return roleAssistant
	case m.OfSystem != nil:
		return roleSystem
	}
	return ""
}

// turnBlocks is m's content as blocks. A system turn's text blocks become
// text blocks that point at copies.
func turnBlocks(m sdk.MessageParam) []sdk.ContentBlockParamUnion {
	switch {
	case m.OfUser != nil:
		return m.OfUser.Content
	case m.OfAssistant != nil:
		return m.OfAssistant.Content
	case m.OfSystem != nil:
		out := make([]sdk.ContentBlockParamUnion, len(m.OfSystem.Content))
		for i, t := range m.OfSystem.Content {
			out[i] = sdk.ContentBlockParamUnion{OfText: &t}
		}
		return out
	}
	return nil
}

// copyTurn returns m with its variant struct copied and its content slice
// cloned, so that neither the caller's later changes nor ours reach the
// other.
func copyTurn(m sdk.MessageParam) sdk.MessageParam {
	switch {
	case m.OfUser != nil:
		v := *m.OfUser
		v.Content = slices.Clone(v.Content)
		m.OfUser = &v
	case m.OfAssistant != nil:
		v := *m.OfAssistant
		v.Content = slices.Clone(v.Content)
		m.OfAssistant = &v
	case m.OfSystem != nil:
		v := *m.OfSystem
		v.Content = slices.Clone(v.Content)
		m.OfSystem = &v
	}
	return m
}

// withBlocks is a turn of role r holding blocks: m's variant, copied with
// any fields set on it, when m has role r; otherwise a new turn.
func withBlocks(m sdk.MessageParam, r role, blocks []sdk.ContentBlockParamUnion) sdk.MessageParam {
	if turnRole(m) != r {
		return newTurn(r, blocks)
	}
	m = copyTurn(m)
	switch r {
	case roleUser:
		m.OfUser.Content = blocks
	case roleAssistant:
		m.OfAssistant.Content = blocks
	case roleSystem:
		m.OfSystem.Content = textBlocks(blocks)
	}
	return m
}

// newTurn is a new turn of role r holding blocks.
func newTurn(r role, blocks []sdk.ContentBlockParamUnion) sdk.MessageParam {
	switch r {
	case roleAssistant:
		return sdk.MessageParam{OfAssistant: &sdk.AssistantMessageParam{Content: blocks}}
	case roleSystem:
		return sdk.MessageParam{OfSystem: &sdk.SystemMessageParam{Content: textBlocks(blocks)}}
	}
	return sdk.MessageParam{OfUser: &sdk.UserMessageParam{Content: blocks}}
}

// textBlocks is blocks as a system turn holds them: text blocks as they
// are, any other block as the text it reads as.
func textBlocks(blocks []sdk.ContentBlockParamUnion) []sdk.TextBlockParam {
	out := make([]sdk.TextBlockParam, 0, len(blocks))
	for _, b := range blocks {
		if b.OfText != nil {
			out = append(out, *b.OfText)
			continue
		}
		out = append(out, sdk.TextBlockParam{Text: blockPart(b).Text})
	}
	return out
}
