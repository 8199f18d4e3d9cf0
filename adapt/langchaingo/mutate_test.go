package langchaingo

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact/internal/msgtest"
)

// This file builds, from fuzz operations, the langchaingo values JSON cannot
// express: typed nil parts, pointer parts, parts in cache wrappers, parts
// of a host's own type, and call ids used twice.

// Operations of mutate (the first byte of each pair, modulo opKinds).
const (
	opNil      = iota // the part becomes one of nilParts' (which: what / opKinds)
	opPointer         // the part is held by pointer
	opCache           // the part is wrapped by llms.WithCacheControl
	opCachePtr        // the part is wrapped in a *llms.CachedContent
	opHost            // the text part becomes a host's own part type
	opReuseID         // an AI message's first call takes an earlier call's id, and so do its responses
	opLong            // a tool response says 300 lines, so a compaction at 8k prunes it
	opKinds
)

// mutate applies ops to a copy of msgs (msgs is not modified): each op is
// two bytes, what and where (a part, counted over the whole history).
func mutate(msgs []llms.MessageContent, ops []byte) []llms.MessageContent {
	if len(ops) < 2 || len(msgs) == 0 {
		return msgs
	}
	out := slices.Clone(msgs)
	for k := range out {
		out[k].Parts = slices.Clone(out[k].Parts)
	}
	ephemeral := &llms.CacheControl{Type: "ephemeral"}
	for ; len(ops) >= 2; ops = ops[2:] {
		what, where := ops[0], int(ops[1])
		k, i, ok := msgtest.PartAt(len(out), func(k int) int { return len(out[k].Parts) }, where)
		if !ok {
			return out
		}
		p := &out[k].Parts[i]
		switch what % opKinds {
		case opNil:
			nils := nilParts()
			*p = nils[int(what/opKinds)%len(nils)].part
		case opPointer:
			*p = pointerTo(*p)
		case opCache:
			*p = llms.WithCacheControl(*p, ephemeral)
		case opCachePtr:
			*p = &llms.CachedContent{ContentPart: *p, CacheControl: ephemeral}
		case opHost:
			if t, ok := asText(*p); ok {
				*p = notePart{TextContent: t, Author: fmt.Sprint(where)}
			}
		case opReuseID:
			reuseCallID(out, k)
		case opLong:
			if r, ok := asResponse(*p); ok {
				r.Content = strings.Repeat("flags.go:12: parse the --legacy flag\n", 300) // fixed, so that repeating the op cannot grow it
				*p = inForm(*p, r)
			}
		}
	}
	return out
}

// pointerTo is p held by pointer, when p is a part value of langchaingo's.
func pointerTo(p llms.ContentPart) llms.ContentPart {
	return inForm(&llms.TextContent{}, p)
}

// reuseCallID renames, in place, the first call of the first AI message at
// or after message k that makes calls (after the first that does) to the id
// of the first call of the first such message, with the responses that
// answer it, so that the history stays as valid as it was and an id
// repeats. Each renamed part keeps its form (see inForm).
func reuseCallID(msgs []llms.MessageContent, k int) {
	first := ""
	for i, m := range msgs {
		if m.Role != llms.ChatMessageTypeAI {
			continue
		}
		var ids []string
		at := -1
		for n, p := range m.Parts {
			if tc, ok := asCall(p); ok {
				ids = append(ids, tc.ID)
				if at < 0 {
					at = n
				}
			}
		}
		if at < 0 {
			continue
		}
		if first == "" || i < k {
			if first == "" {
				first = ids[0]
			}
			continue
		}
		old := ids[0]
		if slices.Contains(ids, first) {
			return
		}
		tc, _ := asCall(m.Parts[at])
		tc.ID = first
		m.Parts[at] = inForm(m.Parts[at], tc)
		for j := i + 1; j < len(msgs) && msgs[j].Role == llms.ChatMessageTypeTool; j++ {
			for n, p := range msgs[j].Parts {
				if r, ok := asResponse(p); ok && r.ToolCallID == old {
					r.ToolCallID = first
					msgs[j].Parts[n] = inForm(p, r)
				}
			}
		}
		return
	}
}

// formOf names the form a part is held in: its type, and inside cache
// wrappers their types, cache control and the type of what they wrap.
func formOf(p llms.ContentPart) string {
	form := ""
	for range maxWrappers {
		form += reflect.TypeOf(p).String()
		switch v := p.(type) {
		case llms.CachedContent:
			form += fmt.Sprintf("%v>", v.CacheControl)
			p = v.ContentPart
		case *llms.CachedContent:
			form += fmt.Sprintf("%v>", v.CacheControl)
			p = v.ContentPart
		default:
			return form
		}
	}
	return form
}

// nilPartIn finds a part of msgs that is nil, a nil pointer, or a cache
// wrapper (of either kind) around either, by reflection: what Convert must
// refuse, found without its own code.
func nilPartIn(msgs []llms.MessageContent) (msg, part int, found bool) {
	isNil := func(p llms.ContentPart) bool {
		for range 3 * maxWrappers {
			if p == nil {
				return true
			}
			v := reflect.ValueOf(p)
			if v.Kind() == reflect.Pointer && v.IsNil() {
				return true
			}
			switch w := p.(type) {
			case llms.CachedContent:
				p = w.ContentPart
			case *llms.CachedContent:
				p = w.ContentPart
			default:
				return false
			}
		}
		return true // wrappers past any depth a history has: a loop
	}
	for k, m := range msgs {
		for i, p := range m.Parts {
			if isNil(p) {
				return k, i, true
			}
		}
	}
	return 0, 0, false
}
