package genai

import (
	"slices"
	"strconv"
	"strings"

	sdk "google.golang.org/genai"

	"github.com/contextkit/compact/internal/msgtest"
)

// This file builds, from fuzz operations, the genai values a fuzzer seldom
// writes as JSON: nil parts and nil parts of function responses, call ids
// used twice, responses with fields to keep and outputs long enough to
// prune.

// Operations of mutate (the first byte of each pair, modulo opKinds).
const (
	opNilPart         = iota // the part becomes nil
	opNilResponsePart        // a function response gets a nil part
	opReuseID                // a model content's first call takes an earlier call's id, and so do its responses
	opFields                 // a function response sets WillContinue and Scheduling
	opLong                   // a function response's output is 300 lines, so a compaction at 8k prunes it
	opKinds
)

// mutate applies ops to a copy of h (h is not modified): each op is two
// bytes, what and where (a part, counted over the whole history). Parts
// and function responses it changes are copies.
func mutate(h History, ops []byte) History {
	if len(ops) < 2 {
		return h
	}
	out := History{System: h.System, Contents: slices.Clone(h.Contents)}
	for k, c := range out.Contents {
		if c != nil {
			cp := *c
			cp.Parts = slices.Clone(c.Parts)
			out.Contents[k] = &cp
		}
	}
	for ; len(ops) >= 2; ops = ops[2:] {
		k, i, ok := msgtest.PartAt(len(out.Contents), func(k int) int { return len(partsOf(out.Contents[k])) }, int(ops[1]))
		if !ok {
			return out
		}
		p := &out.Contents[k].Parts[i]
		response := func(change func(fr *sdk.FunctionResponse)) {
			if *p == nil || (*p).FunctionResponse == nil {
				return
			}
			part, fr := **p, *(*p).FunctionResponse
			change(&fr)
			part.FunctionResponse = &fr
			*p = &part
		}
		switch ops[0] % opKinds {
		case opNilPart:
			*p = nil
		case opNilResponsePart:
			response(func(fr *sdk.FunctionResponse) { fr.Parts = append(slices.Clone(fr.Parts), nil) })
		case opReuseID:
			reuseCallID(out.Contents, k)
		case opFields:
			response(func(fr *sdk.FunctionResponse) {
				fr.WillContinue, fr.Scheduling = sdk.Ptr(false), sdk.FunctionResponseSchedulingWhenIdle
			})
		case opLong:
			response(func(fr *sdk.FunctionResponse) {
				fr.Response = map[string]any{outputKey: strings.Repeat("flags.go:12: parse the --legacy flag\n", 300)}
			})
		}
	}
	return out
}

// reuseCallID renames, in place, the first call of the first model content
// at or after content k that makes calls (after the first that does) to the
// id of the first call of the first such content, with the responses of
// the next content that answer it, so that the history stays as valid as
// it was and an id repeats. Renamed parts are copies.
func reuseCallID(contents []*sdk.Content, k int) {
	first := ""
	for i, c := range contents {
		if c == nil || c.Role != sdk.RoleModel {
			continue
		}
		at := slices.IndexFunc(c.Parts, func(p *sdk.Part) bool { return p != nil && p.FunctionCall != nil })
		if at < 0 {
			continue
		}
		if first == "" || i < k {
			if first == "" {
				first = c.Parts[at].FunctionCall.ID
			}
			continue
		}
		old := c.Parts[at].FunctionCall.ID
		if first == "" || old == "" || slices.ContainsFunc(c.Parts, func(p *sdk.Part) bool {
			return p != nil && p.FunctionCall != nil && p.FunctionCall.ID == first
		}) {
			return
		}
		part, fc := *c.Parts[at], *c.Parts[at].FunctionCall
		fc.ID, part.FunctionCall = first, &fc
		c.Parts[at] = &part
		if i+1 < len(contents) && contents[i+1] != nil {
			next := contents[i+1]
			for n, p := range next.Parts {
				if p != nil && p.FunctionResponse != nil && p.FunctionResponse.ID == old {
					part, fr := *p, *p.FunctionResponse
					fr.ID, part.FunctionResponse = first, &fr
					next.Parts[n] = &part
				}
			}
		}
		return
	}
}

// nilPartIn reports whether h holds a nil content, part or function
// response part: what Convert must refuse.
func nilPartIn(h History) bool {
	var parts []*sdk.Part
	if h.System != nil {
		parts = append(parts, h.System.Parts...)
	}
	for _, c := range h.Contents {
		if c == nil {
			return true
		}
		parts = append(parts, c.Parts...)
	}
	for _, p := range parts {
		if p == nil || p.FunctionResponse != nil && slices.Contains(p.FunctionResponse.Parts, nil) {
			return true
		}
	}
	return false
}

// responseKeys counts h's function responses by id, name, WillContinue and
// Scheduling.
func responseKeys(h History) map[string]int {
	out := map[string]int{}
	for _, c := range h.Contents {
		for _, p := range partsOf(c) {
			if p != nil && p.FunctionResponse != nil {
				out[responseKey(p.FunctionResponse)]++
			}
		}
	}
	return out
}

func responseKey(fr *sdk.FunctionResponse) string {
	wc := "unset"
	if fr.WillContinue != nil {
		wc = strconv.FormatBool(*fr.WillContinue)
	}
	return fr.ID + "\x00" + fr.Name + "\x00" + wc + "\x00" + string(fr.Scheduling)
}

// partsOf is c's parts; none for a nil content.
func partsOf(c *sdk.Content) []*sdk.Part {
	if c == nil {
		return nil
	}
	return c.Parts
}
