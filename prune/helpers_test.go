package prune

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/tokens"
)

// Builders shared with the other packages' tests (see msgtest).
var (
	sys           = msgtest.Sys
	user          = msgtest.User
	asst          = msgtest.Asst
	result        = msgtest.Result
	partsMsg      = msgtest.Parts
	roles         = msgtest.Roles
	randomHistory = msgtest.Random
	toolRound     = msgtest.ToolRound
	bashRound     = msgtest.BashRound
	shellOutput   = msgtest.ShellOutput
	agentRun      = msgtest.AgentRun
)

// maxFuzzMessages bounds the histories fuzz targets build (see msgtest).
const maxFuzzMessages = msgtest.MaxFuzzMessages

// checkPrune asserts a pruning's contracts on one pruning of in into res, made
// with opts: the shape and pairing are kept, exactly the reported messages
// changed (each report exact), JSON arguments still parse, nothing
// protected changed, and pruning the output again changes nothing.
func checkPrune(in []Message, res *Result, opts ...Option) error {
	cfg := newConfig(opts)
	out := res.Messages
	if len(out) != len(in) {
		return fmt.Errorf("%d messages in, %d out", len(in), len(out))
	}
	if msg.Validate(in) == nil {
		if err := msg.Validate(out); err != nil {
			return fmt.Errorf("output invalid: %w", err)
		}
	}
	v := newView(in, cfg)
	reported := map[int]Change{}
	saved := 0
	for k, c := range res.Changes {
		if _, dup := reported[c.Index]; dup || (k > 0 && c.Index < res.Changes[k-1].Index) {
			return fmt.Errorf("changes not one per message in order: %+v", res.Changes)
		}
		reported[c.Index] = c
		saved += c.saved()
	}
	for i := range in {
		if !msgtest.SamePairing(in[i], out[i]) {
			return fmt.Errorf("message %d changed its role or tool pairing", i)
		}
		for k, call := range in[i].ToolCalls {
			if json.Valid([]byte(call.Function.Arguments)) && !json.Valid([]byte(out[i].ToolCalls[k].Function.Arguments)) {
				return fmt.Errorf("message %d: call %d's arguments no longer parse", i, k)
			}
		}
		c, ok := reported[i]
		if changed := !msg.EqualMessage(in[i], out[i]); changed != ok {
			return fmt.Errorf("message %d: changed %v, reported %v", i, changed, ok)
		}
		if !ok {
			continue
		}
		if c.TokensBefore != cfg.counter.CountMessage(in[i]) || c.TokensAfter != cfg.counter.CountMessage(out[i]) ||
			c.saved() < minSaving {
			return fmt.Errorf("message %d: report %+v does not match the counts", i, c)
		}
		tail := i >= v.to
		switch {
		case i >= v.pendingFrom, i == v.latestUser, msg.IsSystem(in[i]), msg.IsSummary(in[i]),
			(c.Kind == Demoted || c.Kind == Trimmed) && i >= len(in)-pressureKeepMessages:
			return fmt.Errorf("message %d is protected but was changed (%s)", i, c.Kind)
		case c.Kind == Trimmed:
			if cfg.fit == 0 || msg.HasImages(in[i]) || in[i].Role == msg.RoleTool && v.keepsResult(i) {
				return fmt.Errorf("message %d was trimmed, but may not be", i)
			}
		case tail != (c.Kind == Demoted):
			return fmt.Errorf("message %d: %s, but tail is %v", i, c.Kind, tail)
		case i < v.from:
			return fmt.Errorf("message %d is before the range but was changed", i)
		}
		if c.Kind != ArgumentsShortened && c.Kind != ImagesReplaced && !isTrimmed(out[i]) {
			return fmt.Errorf("message %d: %s result does not start with %s", i, c.Kind, prunedPrefix)
		}
	}
	if res.Reclaimable != saved && res.Committed {
		return fmt.Errorf("reclaimable %d, changes save %d", res.Reclaimable, saved)
	}
	if res.TokensBefore != tokens.CountMessages(cfg.counter, in) || res.TokensAfter != tokens.CountMessages(cfg.counter, out) {
		return fmt.Errorf("totals %d -> %d, counted %d -> %d", res.TokensBefore, res.TokensAfter,
			tokens.CountMessages(cfg.counter, in), tokens.CountMessages(cfg.counter, out))
	}
	if res.Committed != (len(res.Changes) > 0) || (res.Committed && saved < cfg.clearAtLeast) {
		return fmt.Errorf("committed %v with %d changes saving %d", res.Committed, len(res.Changes), saved)
	}
	again := Apply(out, opts...)
	if res.Committed && again.Reclaimable != 0 {
		return fmt.Errorf("pruning again finds %d more tokens: %+v", again.Reclaimable, again)
	}
	if !reflect.DeepEqual(again.Messages, out) {
		return fmt.Errorf("pruning again changed the history")
	}
	return nil
}
