// Package prune shrinks a chat history's old tool output without calling a
// model: the cheap tier of compaction, which package compact's Compressor
// runs before it summarises and which a host may run on its own.
//
// Most of a coding agent's context is tool output it has already acted on.
// [Apply] turns old tool results into one-line stand-ins that say which tool
// ran on what, how it ended and how big the output was; replaces a result
// repeated later by a back-reference to the later one; shortens long tool
// arguments, keeping them valid JSON; and replaces images older than the newest with
// text notes. The most recent
// tool uses stay whole ([WithKeepToolUses]), and so does the output of a
// tool a [ToolRule] protects ([WithToolRules]). When the protected tail alone is
// over budget ([WithPressure]), its largest results are demoted, largest
// first; when the whole history must fit a budget ([WithFit]), its largest
// messages of any role are trimmed to their head and tail.
//
// A pruning changes messages in place, never their number, roles or
// pairing: the [Result] has the same length as the input, with the same
// tool calls and tool_call_ids at the same indexes, so it is still a valid
// request. Any change rewrites the provider's prompt cache from the first
// changed message on, so a pruning is committed only when it reclaims at
// least [WithClearAtLeast] tokens; otherwise Result.Messages is a copy of
// the input and Result.Committed is false. Each [Change] says what was done
// to which message ([Kind]).
//
//	res := prune.Apply(msgs, prune.WithKeepToolUses(5))
//	if res.Committed {
//		msgs = res.Messages
//	}
//
// [New] builds a [Pruner] to apply the same settings many times. Options
// given an invalid value keep their default and are named in
// Result.Adjusted. The input is never modified.
package prune
