package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/prune"
)

// errNilResponse reports a Record without a response.
var errNilResponse = errors.New("anthropic: Record: no response")

// Record reads what the provider did with h, the history of a request sent
// with RequestOptions, from resp, its response; records the response's
// usage with the fallback (call it instead of UpdateUsage); and returns
// what was done as a compact.Result, or nil when the provider neither
// compacted nor cleared. Give it h exactly as it was sent, before the
// response is appended. Its indexes count h's messages as Convert makes
// them.
//
// The provider compacted when resp holds a compaction block with a
// summary. Result.Messages is then the history the next request holds, as
// the API reads it and compact converts it: the system prompt, the block
// (a summary, at SummaryIndex) and the rest of the response. Every turn of
// h is folded (SummarizedFrom is the first message after the system
// prompt, SummarizedTo the last, and Account says so), the latest user
// message too: the provider keeps nothing of h but the system prompt.
// Summary is the provider's summary and Summarizer
// "anthropic:compact_20260112". TokensBefore is the context the compaction
// read and TokensAfter the context the answer was written from, both the
// provider's counts (usage.iterations), else the fallback's. What the pass
// itself cost is LastUsage; Status().Compressions counts it.
//
// The provider cleared tool results when its response says so
// (context_management.applied_edits). The history is unchanged (the
// provider clears on its side, at every request from now on), so
// Result.Messages is h's; Pruned and Account name the results cleared: the
// oldest ones the API reads, leaving out the excluded tools (the API says
// how many, not which). TokensBefore and TokensAfter are the request's
// input before and after the edits, cleared thinking included.
//
// A compaction block without a summary is a failure of native compaction:
// Record reports it in Status().LastError and starts the backoff, so the
// next Compress compacts with the fallback, and returns the clearing's
// Result, if any. The response is good: append it as usual.
//
// A host that keeps the conversation in a session.Session appends the
// response to the session, then gives it a compaction's Result with
// Session.RecordCompaction: the session's history becomes the provider's, its log
// keeps every turn the provider folded, and its recall line goes into the
// system prompt, not into the block. The indexes agree when h is the
// session's history restored onto the host's blocks (examples/nativeloop).
//
// Errors are Convert's for h, and a nil resp.
func (n *NativeEngine) Record(h History, resp *sdk.Message) (*compact.Result, error) {
	if resp == nil {
		return nil, errNilResponse
	}
	conv, err := Convert(h)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	n.skipNext = false // this request went out after the failure that asked for it
	n.mu.Unlock()

	usage := UsageFrom(resp.Usage)
	summary, blocks := responseCompaction(resp)
	edits := appliedEdits(resp)
	var res *compact.Result
	switch {
	case summary != "":
		res, err = n.compacted(conv, h, resp, summary)
		if err != nil {
			return nil, err
		}
		n.succeed()
	case blocks > 0:
		n.fail("a compaction block without a summary (the provider's summarising pass failed)", true)
		fallthrough
	default:
		if edits.cleared > 0 {
			res = n.cleared(conv, edits, usage.PromptTokens)
			usage.PromptTokens += edits.cleared // the request as sent, which is what compact counts
		}
	}
	n.fallback.UpdateUsage(usage)
	return res, nil
}

// RecordFailure records a request sent with RequestOptions for h that
// failed with err, and reports whether native context management is to
// blame: an error the API gives for it (an error_code starting
// "compaction_", such as a 529 compaction_unavailable, or a 400 that names
// context_management, the compaction or the beta), or an error status of
// 500 and up, or a timeout, on a request whose history had reached the
// trigger (the provider compacts inside that request). Then the next
// request goes without the edits, and so do those until the backoff ends,
// and Compress compacts with the fallback (forced, unless the edits were
// refused rather than tried): send the request again. When it is false the
// failure is the host's to handle. A cancelled context is never native
// compaction's failure.
func (n *NativeEngine) RecordFailure(h History, err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || !n.sendsEdits() {
		return false
	}
	var apiErr *sdk.Error
	isAPI := errors.As(err, &apiErr)
	due := true
	switch {
	case isAPI && strings.HasPrefix(string(apiErr.ErrorCode()), "compaction_"):
	case isAPI && apiErr.StatusCode == http.StatusBadRequest && namesContextManagement(apiErr.Message+" "+apiErr.RawJSON()):
		due = false // the edits were refused, not tried
	case (isAPI && apiErr.StatusCode >= http.StatusInternalServerError || isTimeout(err)) && n.dueNative(h):
	default:
		return false
	}
	n.fail(oneLine(err.Error()), due)
	return true
}

// namesContextManagement reports whether an error message is about the
// edits: it names their field, the compaction, or the beta header.
func namesContextManagement(msg string) bool {
	msg = strings.ToLower(msg)
	for _, s := range []string{"context_management", "compact", "anthropic-beta", "clear_tool_uses", "clear_thinking"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// isTimeout reports whether err is a timeout: a deadline, or a network
// timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// dueNative reports whether h, as the API reads it, had reached the
// trigger: the provider would have compacted it inside the request.
func (n *NativeEngine) dueNative(h History) bool {
	if !n.cfg.compaction {
		return false
	}
	conv, err := Convert(h)
	if err != nil {
		return false
	}
	live, _ := conv.live()
	return n.Preflight(live.Messages).Tokens >= n.trigger()
}

// responseCompaction reads the compaction blocks of resp: the newest
// summary ("" when none has one) and how many blocks there are.
func responseCompaction(resp *sdk.Message) (summary string, blocks int) {
	for _, b := range resp.Content {
		if b.Type != typeCompaction {
			continue
		}
		blocks++
		var c compactionBlock
		if json.Unmarshal([]byte(b.RawJSON()), &c) == nil && c.Content != nil && *c.Content != "" {
			summary = *c.Content
		}
	}
	return summary, blocks
}

// edits is what context_management.applied_edits reports: the tool uses
// cleared, and the input tokens every edit cleared.
type edits struct {
	toolUses, cleared int
}

// appliedEdits reads context_management.applied_edits from resp. SDK v2
// keeps it among the message's extra fields.
func appliedEdits(resp *sdk.Message) edits {
	f, ok := resp.JSON.ExtraFields["context_management"]
	if !ok {
		return edits{}
	}
	var w struct {
		AppliedEdits []struct {
			Type            string `json:"type"`
			ClearedTokens   int    `json:"cleared_input_tokens"`
			ClearedToolUses int    `json:"cleared_tool_uses"`
		} `json:"applied_edits"`
	}
	if json.Unmarshal([]byte(f.Raw()), &w) != nil {
		return edits{}
	}
	var out edits
	for _, e := range w.AppliedEdits {
		out.cleared += e.ClearedTokens
		out.toolUses += e.ClearedToolUses
	}
	return out
}

// compacted is the Result of the provider's compaction of conv (h) in resp.
func (n *NativeEngine) compacted(conv *Conversion, h History, resp *sdk.Message, summary string) (*compact.Result, error) {
	next := History{System: h.System, Messages: append(slices.Clone(h.Messages), resp.ToParam())}
	after, err := Convert(next)
	if err != nil {
		return nil, err
	}
	live, _ := after.live()
	lead := conv.leadEnd()
	res := &compact.Result{
		Messages:       live.Messages,
		MessagesBefore: len(conv.views), MessagesAfter: len(live.views),
		SummarizedFrom: -1, SummarizedTo: -1,
		SummaryIndex: lead, Summary: summary, Summarizer: nativeSummarizer,
		Lifted: -1, TooLarge: -1, Shortened: -1, Fits: true,
	}
	if lead < len(conv.views) {
		res.SummarizedFrom, res.SummarizedTo = lead, len(conv.views)-1
	}
	count, names := n.counter(), toolNames(conv.views)
	for j, v := range conv.views {
		f := compact.MessageFate{Index: j, Role: v.Role, Tool: toolOf(v, names), Tokens: count(v), Fate: "folded", Output: lead}
		if j < lead {
			f.Fate, f.Output = "kept", j
		}
		res.Account = append(res.Account, f)
	}

	its := iterationsOf(resp.Usage)
	res.TokensBefore, res.TokensAfter = -1, -1
	for i, it := range its {
		if it.Type == iterationCompaction && res.TokensBefore < 0 {
			res.TokensBefore = it.input()
		}
		if it.Type == iterationMessage && i > 0 && slices.ContainsFunc(its[:i], func(p iteration) bool { return p.Type == iterationCompaction }) {
			res.TokensAfter = it.input()
		}
	}
	if p, ok := n.fallback.(compact.Preflighter); ok {
		before, now := p.Preflight(conv.Messages), p.Preflight(live.Messages)
		res.Fits, res.Usable, res.Overflow = now.Fits, now.Usable, now.Overflow
		if res.TokensBefore < 0 {
			res.TokensBefore = before.Tokens
		}
		if res.TokensAfter < 0 {
			res.TokensAfter = now.Tokens
		}
		// The provider's count of the context after the compaction (UsageFrom's
		// prompt) goes with compact's count of the same messages: the system
		// prompt and the summary, which the fallback's calibration pairs.
		p.Preflight(live.Messages[:min(lead+1, len(live.Messages))])
	}
	res.TokensBefore, res.TokensAfter = max(res.TokensBefore, 0), max(res.TokensAfter, 0)
	n.mu.Lock()
	n.lastUsage, _ = compactionUsage(its)
	n.mu.Unlock()
	return res, nil
}

// cleared is the Result of the provider's clearing of conv's tool results:
// the history unchanged, the results cleared listed in Pruned. prompt is
// the request's input after the edits.
func (n *NativeEngine) cleared(conv *Conversion, e edits, prompt int) *compact.Result {
	res := &compact.Result{
		Messages:       compact.Clone(conv.views),
		MessagesBefore: len(conv.views), MessagesAfter: len(conv.views),
		TokensBefore: prompt + e.cleared, TokensAfter: prompt,
		SummarizedFrom: -1, SummarizedTo: -1, SummaryIndex: -1, Lifted: -1, TooLarge: -1, Shortened: -1, Fits: true,
	}
	live, _ := conv.live()
	cleared := map[int]bool{}
	for _, j := range clearedResults(live.views, e.toolUses, n.cfg.exclude) {
		cleared[live.originOf(j)] = true
	}
	count, names := n.counter(), toolNames(conv.views)
	for j, v := range conv.views {
		f := compact.MessageFate{Index: j, Role: v.Role, Tool: toolOf(v, names), Tokens: count(v), Fate: "kept", Output: j}
		if cleared[j] {
			f.Fate, f.Prune = "pruned", prune.Masked
			stand := compact.Message{Role: v.Role, ToolCallID: v.ToolCallID, Content: clearedPlaceholder}
			res.Pruned = append(res.Pruned, prune.Change{Index: j, Kind: f.Prune, ToolCallID: v.ToolCallID,
				Tool: f.Tool, TokensBefore: f.Tokens, TokensAfter: count(stand), Note: clearedNote})
		}
		res.Account = append(res.Account, f)
	}
	if p, ok := n.fallback.(compact.Preflighter); ok {
		now := p.Preflight(conv.Messages)
		res.Usable = now.Usable
		res.Overflow = max(0, prompt-now.Usable)
		res.Fits = res.Overflow == 0
	}
	return res
}

// clearedPlaceholder stands for a cleared result when its tokens after the
// clearing are estimated: the provider's own placeholder is not sent back.
const clearedPlaceholder = "[tool result cleared]"

// clearedNote says who pruned a result the provider cleared.
const clearedNote = "cleared by Anthropic's clear_tool_uses_20250919 on its side; the history keeps it"

// clearedResults returns the indexes of the tool messages of views (a
// history as the API reads it) that the provider's clear_tool_uses edit
// cleared when it reports n cleared: the oldest results, in order, leaving
// out those that answer a call of an excluded tool.
func clearedResults(views []compact.Message, n int, exclude []string) []int {
	if n <= 0 {
		return nil
	}
	names := toolNames(views)
	var out []int
	for j, v := range views {
		if v.Role != compact.RoleTool || slices.Contains(exclude, names[v.ToolCallID]) {
			continue
		}
		out = append(out, j)
		if len(out) == n {
			break
		}
	}
	return out
}

// toolNames maps each call id of views to its tool's name.
func toolNames(views []compact.Message) map[string]string {
	names := map[string]string{}
	for _, v := range views {
		for _, c := range v.ToolCalls {
			names[c.ID] = c.Function.Name
		}
	}
	return names
}

// toolOf is what MessageFate.Tool says of v: the tool a result answers, or
// the tools an assistant turn calls.
func toolOf(v compact.Message, names map[string]string) string {
	if v.Role == compact.RoleTool {
		return names[v.ToolCallID]
	}
	calls := make([]string, 0, len(v.ToolCalls))
	for _, c := range v.ToolCalls {
		calls = append(calls, c.Function.Name)
	}
	return strings.Join(calls, ",")
}

// counter returns how the fallback counts one message (its token counter,
// when it shows one), or a count of 0.
func (n *NativeEngine) counter() func(compact.Message) int {
	if c, ok := n.fallback.(compact.CounterProvider); ok {
		return c.Counter().CountMessage
	}
	return func(compact.Message) int { return 0 }
}
