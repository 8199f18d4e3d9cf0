package compact

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
)

// toolRound is an assistant turn calling one tool, and the tool's result.
func toolRound(id, name, args, output string) []Message {
	return []Message{
		{Role: RoleAssistant, ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: name, Arguments: args}}}},
		result(id, output),
	}
}

// bashRound is a round of a bash tool running command.
func bashRound(id, command, output string) []Message {
	args, _ := json.Marshal(map[string]string{"command": command})
	return toolRound(id, "bash", string(args), output)
}

// shellOutput is lines lines of output tagged tag, ending in an OpenHands
// style exit status line.
func shellOutput(tag string, lines, status int) string {
	var b strings.Builder
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&b, "%s: line %d of the output of a command\n", tag, i)
	}
	fmt.Fprintf(&b, "[The command completed with exit code %d.]", status)
	return b.String()
}

// agentRun is a coding agent's history: a system prompt, the task, n bash
// uses with outputs of about 250 tokens, and a closing assistant message.
func agentRun(n int) []Message {
	msgs := []Message{sys("You are a coding agent."), user("Fix the failing test in pkg/store.")}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, bashRound(id, fmt.Sprintf("go test ./pkg/store -run Test%d", i), shellOutput(id, 25, i%2))...)
	}
	return append(msgs, asst("The test passes now."))
}

// checkPrune asserts Prune's contracts on one pruning of in into res, made
// with opts: the shape and pairing are kept, exactly the reported messages
// changed (each report exact), JSON arguments still parse, nothing
// protected changed, and pruning the output again changes nothing.
func checkPrune(in []Message, res *PruneResult, opts ...Option) error {
	cfg := pruneSettings(opts)
	out := res.Messages
	if len(out) != len(in) {
		return fmt.Errorf("%d messages in, %d out", len(in), len(out))
	}
	if Validate(in) == nil {
		if err := Validate(out); err != nil {
			return fmt.Errorf("output invalid: %w", err)
		}
	}
	v := newPruneView(in, cfg)
	reported := map[int]PruneChange{}
	saved := 0
	for k, c := range res.Changes {
		if _, dup := reported[c.Index]; dup || (k > 0 && c.Index < res.Changes[k-1].Index) {
			return fmt.Errorf("changes not one per message in order: %+v", res.Changes)
		}
		reported[c.Index] = c
		saved += c.saved()
	}
	for i := range in {
		if !samePairing(in[i], out[i]) {
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
			c.saved() < minPruneSaving {
			return fmt.Errorf("message %d: report %+v does not match the counts", i, c)
		}
		tail := i >= v.to
		switch {
		case i >= v.pendingFrom, i == v.latestUser, msg.IsSystem(in[i]), IsSummary(in[i]),
			c.Kind == kindDemoted && i >= len(in)-pressureKeepMessages:
			return fmt.Errorf("message %d is protected but was changed (%s)", i, c.Kind)
		case tail != (c.Kind == kindDemoted):
			return fmt.Errorf("message %d: %s, but tail is %v", i, c.Kind, tail)
		case i < v.from:
			return fmt.Errorf("message %d is before the range but was changed", i)
		}
		if c.Kind != kindArguments && c.Kind != kindImages && !isPruned(out[i]) {
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
	again := Prune(out, opts...)
	if res.Committed && again.Reclaimable != 0 {
		return fmt.Errorf("pruning again finds %d more tokens: %+v", again.Reclaimable, again)
	}
	if !reflect.DeepEqual(again.Messages, out) {
		return fmt.Errorf("pruning again changed the history")
	}
	return nil
}
