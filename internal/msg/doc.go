// Package msg holds what every part of compact needs to know about the
// shape of a chat history: reading a message's text (Text, ToolCallText),
// copying without sharing (Clone, CloneMessage), writing content
// (ReplaceText, JoinContent), the summary a compaction writes (its prefix,
// the user messages it carries and which of them fit a budget, a summary
// merged into another message),
// and the pairing of tool calls with their results (Validate, Problems,
// RepairToolPairs, Join, AlignCut).
//
// The root package's public guards (compact.Validate, compact.Text,
// compact.IsSummary...) are thin functions over these; prune, handoff and
// the extractive summarizer use them directly. It imports nothing of
// compact's but textcut.
package msg
