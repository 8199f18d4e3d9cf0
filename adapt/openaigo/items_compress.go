package openaigo

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/openai/openai-go/v3/responses"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/prune"
)

// ItemCompressor is implemented by engines that compact Responses items
// themselves, such as NativeEngine, which hands them to the provider.
// CompressItems gives such an engine the items, not their conversion.
type ItemCompressor interface {
	// CompressItems compacts items as CompressItems documents.
	CompressItems(ctx context.Context, items []Item, opts ...compact.CompressOption) ([]Item, *compact.Result, error)
}

// CompressItems converts items, compacts them through engine and converts
// the result back: one call before a Responses request. An engine that is
// an ItemCompressor gets the items themselves.
//
// The Result's indexes and counts are the items': SummarizedFrom and
// SummarizedTo name the first and last item folded, Lifted and the
// Pruned entries the first item of a message, MessagesBefore and
// MessagesAfter count items, and SummaryIndex, TooLarge and Shortened index
// the returned items. Result.Messages is the engine's output as compact
// reads it (one message for a turn of several items).
//
// A provider's compaction item is a summary (see the package doc): when a
// compaction is due, what came before the newest compaction item is folded
// (it is inside that item) but the leading instructions and the real user
// messages (which the provider keeps beside its item), and the engine
// compacts the rest only if it must. When it need not, the result is the
// instructions, those user messages, the newest compaction item and
// everything after it, reported with Summarizer "openai:compaction".
//
// It may be called before every request: when the engine does nothing,
// CompressItems returns items itself. On error items are untouched and the
// caller keeps sending them. Errors are ConvertItems', Restore's and the
// engine's.
func CompressItems(ctx context.Context, engine compact.ContextEngine, items []Item,
	opts ...compact.CompressOption) ([]Item, *compact.Result, error) {
	if ic, ok := engine.(ItemCompressor); ok {
		return ic.CompressItems(ctx, items, opts...)
	}
	return compressItems(ctx, engine, items, opts...)
}

// providerSummarizer names the provider's compaction in a Result.
const providerSummarizer = "openai:compaction"

// compressItems is CompressItems with compact's own engines.
func compressItems(ctx context.Context, engine compact.ContextEngine, items []Item,
	opts ...compact.CompressOption) ([]Item, *compact.Result, error) {
	conv, err := ConvertItems(items)
	if err != nil {
		return nil, nil, err
	}
	sel, dropped := conv.providerCut(engine, opts)
	sub := conv.pick(sel)
	res, err := engine.Compress(ctx, sub.Messages, opts...)
	if dropped.to > dropped.from && (err == nil && res != nil && res.Skipped != "" ||
		errors.Is(err, compact.ErrNothingToCompress) || errors.Is(err, compact.ErrNoSavings)) {
		out, res, err := conv.providerOnly(engine, sub, sel, dropped, opts)
		return out, res, err
	}
	var ve *compact.ValidationError
	if errors.As(err, &ve) && ve.Index >= 0 && ve.Index < len(sub.spans) {
		e := sub.itemError(ve)
		e.Index = sub.originOf(e.Index)
		return nil, nil, fmt.Errorf("openaigo: %w", e)
	}
	if err != nil {
		return nil, nil, err
	}
	if res == nil {
		return nil, nil, fmt.Errorf("openaigo: engine %q returned no result and no error", engine.Name())
	}
	if res.Skipped != "" && len(res.Messages) == len(conv.Messages) {
		return items, conv.itemResult(res, sel, nil, dropped, len(items)), nil
	}
	out, starts, err := sub.restore(res.Messages)
	if err != nil {
		return nil, nil, err
	}
	return out, conv.itemResult(res, sel, starts, dropped, len(out)), nil
}

// ShouldCompressItems reports whether engine wants items compacted before
// they are sent, as ShouldCompress does for Chat Completions. The error is
// ConvertItems'.
func ShouldCompressItems(engine compact.ContextEngine, items []Item) (bool, error) {
	conv, err := ConvertItems(items)
	if err != nil {
		return false, err
	}
	return wantsCompaction(engine, conv.Messages, nil), nil
}

// wantsCompaction reports whether engine would compact msgs under opts.
func wantsCompaction(engine compact.ContextEngine, msgs []compact.Message, opts []compact.CompressOption) bool {
	if compact.ApplyCompressOptions(opts...).Force {
		return true
	}
	if p, ok := engine.(compact.Preflighter); ok {
		return p.Preflight(msgs, opts...).Compress
	}
	return engine.ShouldCompress(engine.Status().LastPromptTokens)
}

// UsageFromResponse converts the usage of a Responses API response (or of
// a compaction) for ContextEngine.UpdateUsage.
// CachedTokens comes from input_tokens_details.cached_tokens and
// CacheWriteTokens from input_tokens_details.cache_write_tokens (the
// Responses API reports the writes of explicit cache breakpoints).
func UsageFromResponse(u responses.ResponseUsage) compact.Usage {
	return compact.Usage{
		PromptTokens:     int(u.InputTokens),
		CompletionTokens: int(u.OutputTokens),
		TotalTokens:      int(u.TotalTokens),
		CachedTokens:     int(u.InputTokensDetails.CachedTokens),
		CacheWriteTokens: int(u.InputTokensDetails.CacheWriteTokens),
	}
}

// leadEnd is the number of leading messages that are system or developer
// messages.
func (c *ItemConversion) leadEnd() int {
	n := 0
	for n < len(c.views) && (c.views[n].Role == compact.RoleSystem || c.views[n].Role == roleDeveloper) {
		n++
	}
	return n
}

// newestCompaction is the index of the last message that is a provider's
// compaction item, or -1.
func (c *ItemConversion) newestCompaction() int {
	for j := len(c.spans) - 1; j >= 0; j-- {
		if c.sorted.kinds[c.firstItem(c.spans[j])] == kindCompaction {
			return j
		}
	}
	return -1
}

// providerCut chooses the messages the engine gets: all of them, or, when a
// compaction is due and a provider's compaction item follows messages it
// folded, the leading instructions, the real user messages before the
// newest compaction item (the provider keeps those beside its item) and
// that item with everything after it. dropped spans the items left out.
func (c *ItemConversion) providerCut(engine compact.ContextEngine, opts []compact.CompressOption) (sel []int, dropped span) {
	all := make([]int, len(c.views))
	for j := range all {
		all[j] = j
	}
	lead, k := c.leadEnd(), c.newestCompaction()
	if k <= lead || !wantsCompaction(engine, c.views, opts) {
		return all, span{}
	}
	sel = append(sel, all[:lead]...)
	first, last := -1, -1
	for j := lead; j < k; j++ {
		if compact.IsRealUser(c.views[j]) {
			sel = append(sel, j)
			continue
		}
		if first < 0 {
			first = j
		}
		last = j
	}
	if first < 0 {
		return all, span{}
	}
	sel = append(sel, all[k:]...)
	// An output after the compaction item that answers a call before it
	// would be left without its call: then nothing is left out.
	if compact.Validate(c.pick(sel).views) != nil {
		return all, span{}
	}
	return sel, span{from: c.spans[first].from, to: c.spans[last].to}
}

// pick returns the conversion of the items of the messages sel names, in
// order.
func (c *ItemConversion) pick(sel []int) *ItemConversion {
	if len(sel) == len(c.views) {
		return c
	}
	p := &ItemConversion{}
	for _, j := range sel {
		s := c.spans[j]
		at := len(p.hist)
		for i := s.from; i < s.to; i++ {
			p.origin = append(p.origin, i)
		}
		p.hist = append(p.hist, c.hist[s.from:s.to]...)
		p.wires = append(p.wires, c.wires[s.from:s.to]...)
		p.sorted.kinds = append(p.sorted.kinds, c.sorted.kinds[s.from:s.to]...)
		p.sorted.calls = append(p.sorted.calls, c.sorted.calls[s.from:s.to]...)
		p.sorted.outputs = append(p.sorted.outputs, c.sorted.outputs[s.from:s.to]...)
		p.spans = append(p.spans, span{from: at, to: at + s.to - s.from})
		p.views = append(p.views, c.views[j])
	}
	p.Messages = compact.Clone(p.views)
	return p
}

// originOf is the index, in the history c was picked from, of c's item i.
func (c *ItemConversion) originOf(i int) int {
	if c.origin == nil {
		return i
	}
	return c.origin[i]
}

// providerOnly is the compaction that leaving out the dropped items alone
// makes: the picked items, and the incoming message, if any.
func (c *ItemConversion) providerOnly(engine compact.ContextEngine, sub *ItemConversion, sel []int, dropped span,
	opts []compact.CompressOption) ([]Item, *compact.Result, error) {
	out := sub.original(0)
	for j := 1; j < len(sub.spans); j++ {
		out = append(out, sub.original(j)...)
	}
	msgs := compact.Clone(sub.views)
	if in := compact.ApplyCompressOptions(opts...).Incoming; in != nil {
		r := &restorer{c: sub, callTypes: sub.callTypes()}
		items, err := r.newItems(*in)
		if err != nil {
			return nil, nil, fmt.Errorf("openaigo: incoming message: %w: %w", compact.ErrInvalidHistory, err)
		}
		out = append(out, items...)
		msgs = append(msgs, *in)
	}
	k := len(sel) - 1
	for k >= 0 && c.sorted.kinds[c.firstItem(c.spans[sel[k]])] != kindCompaction {
		k--
	}
	res := &compact.Result{
		Messages:       msgs,
		MessagesBefore: len(c.hist), MessagesAfter: len(out),
		SummarizedFrom: dropped.from, SummarizedTo: dropped.to - 1,
		SummaryIndex: sub.firstItem(sub.spans[k]),
		Summarizer:   providerSummarizer,
		Lifted:       -1, TooLarge: -1, Shortened: -1, Fits: true,
	}
	kept := make(map[int]int, len(sub.hist)) // item of c to its index in out
	for i := range sub.hist {
		kept[sub.originOf(i)] = i
	}
	for j, s := range c.spans {
		for i := s.from; i < s.to; i++ {
			f := compact.MessageFate{Index: i, Role: c.views[j].Role, Fate: "kept", Output: kept[i]}
			if _, ok := kept[i]; !ok {
				f.Fate, f.Output = "folded", res.SummaryIndex
			}
			res.Account = append(res.Account, f)
		}
	}
	if p, ok := engine.(compact.Preflighter); ok {
		before, after := p.Preflight(c.views, opts...), p.Preflight(msgs)
		res.TokensBefore, res.TokensAfter = before.Tokens, after.Tokens
		res.Fits, res.Usable, res.Overflow = after.Fits, after.Usable, after.Overflow
		switch {
		case after.TooLarge >= 0 && after.TooLarge < len(sub.spans):
			res.TooLarge = sub.spans[after.TooLarge].from
		case after.TooLarge >= 0:
			res.TooLarge = len(sub.hist) // the incoming message
		}
	}
	return out, res, nil
}

// itemResult is res, the engine's result for the messages sel picked, with
// its indexes and counts turned into the items': input messages to their
// first item (and SummarizedTo to the last item of its message), output
// messages to the index of their first item in the result (starts), and
// the dropped items added to the summarised range.
func (c *ItemConversion) itemResult(res *compact.Result, sel []int, starts []int, dropped span, n int) *compact.Result {
	r := *res
	first := func(j int) int {
		if j < 0 || j >= len(sel) {
			return j
		}
		return c.spans[sel[j]].from
	}
	out := func(j int) int {
		if j < 0 || starts == nil || j >= len(starts) {
			return j
		}
		return starts[j]
	}
	r.MessagesBefore, r.MessagesAfter = len(c.hist), n
	if r.SummarizedFrom >= 0 && r.SummarizedTo < len(sel) {
		r.SummarizedFrom, r.SummarizedTo = first(r.SummarizedFrom), c.spans[sel[r.SummarizedTo]].to-1
	}
	if dropped.to > dropped.from {
		if r.SummarizedFrom < 0 {
			r.SummarizedFrom, r.SummarizedTo = dropped.from, dropped.to-1
		} else {
			r.SummarizedFrom, r.SummarizedTo = min(r.SummarizedFrom, dropped.from), max(r.SummarizedTo, dropped.to-1)
		}
	}
	r.Lifted = first(r.Lifted)
	r.CarriedFrom = append([]int(nil), res.CarriedFrom...)
	for i := range r.CarriedFrom {
		r.CarriedFrom[i] = first(r.CarriedFrom[i])
	}
	r.Account = c.itemAccount(res, sel, starts, dropped, r.SummaryIndex)
	r.Pruned = append([]prune.Change(nil), res.Pruned...)
	for i := range r.Pruned {
		r.Pruned[i].Index = first(r.Pruned[i].Index)
	}
	r.Repairs = append([]compact.Repair(nil), res.Repairs...)
	for i := range r.Repairs {
		r.Repairs[i].Index = first(r.Repairs[i].Index)
	}
	r.SummaryIndex, r.TooLarge, r.Shortened = out(r.SummaryIndex), out(r.TooLarge), out(r.Shortened)
	return &r
}

// itemAccount is res.Account, the fate of each message the engine got, as
// the fate of each of their items (the message's tokens on its first item)
// with the items left out before the engine ran folded into the summary.
// An item's Output is its own index in the result when its message was
// kept or lifted, else the index of the first item its message became (or
// the summary's). It is nil when res has no account.
func (c *ItemConversion) itemAccount(res *compact.Result, sel, starts []int, dropped span, summary int) []compact.MessageFate {
	if res.Account == nil {
		return nil
	}
	out := make([]compact.MessageFate, 0, len(c.hist))
	for _, f := range res.Account {
		if f.Index < 0 || f.Index >= len(sel) {
			continue
		}
		s := c.spans[sel[f.Index]]
		for i := s.from; i < s.to; i++ {
			g := f
			g.Index = i
			if i > s.from {
				g.Tokens = 0
			}
			if g.Output >= 0 && g.Output < len(starts) {
				g.Output = starts[g.Output]
				if f.Fate == "kept" || f.Fate == "lifted" {
					g.Output += i - s.from
				}
			}
			out = append(out, g)
		}
	}
	picked := make(map[int]bool, len(sel))
	for _, j := range sel {
		picked[j] = true
	}
	for j, s := range c.spans {
		if picked[j] || s.from < dropped.from || s.to > dropped.to {
			continue
		}
		for i := s.from; i < s.to; i++ {
			out = append(out, compact.MessageFate{Index: i, Role: c.views[j].Role, Fate: "folded", Output: summary})
		}
	}
	slices.SortFunc(out, func(a, b compact.MessageFate) int { return a.Index - b.Index })
	return out
}
