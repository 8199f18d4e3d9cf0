package msg

// This file holds where "/compress here N" and "summarize up to here" cut a
// history (compact.SplitExchanges and compact.SplitAt document the rules).

// ExchangeStart returns the index where the last keep exchanges of msgs
// start, fewer when there are fewer, or -1 when no real user turn follows
// the last summary. An exchange starts at a real user turn with no summary
// in it that does not follow another such turn.
func ExchangeStart(msgs []Message, keep int) int {
	last := LastIndex(msgs, 0, IsSummary)
	start, found := -1, 0
	for i := len(msgs) - 1; i > last && found < keep; i-- {
		if isPlainUser(msgs[i]) && (i == 0 || !isPlainUser(msgs[i-1])) {
			start, found = i, found+1
		}
	}
	return start
}

// isPlainUser reports whether m is a real user turn with no summary in it.
func isPlainUser(m Message) bool { return IsRealUser(m) && !IsSummary(m) }

// KeepStart returns where a tail that should start at msgs[index] may
// start: past standalone summaries (folded, never kept beside the new
// one), then back off a tool result to its call and off the second of two
// turns of one role. ok is false when nothing but summaries follows index,
// which must be in range.
func KeepStart(msgs []Message, index int) (start int, ok bool) {
	i := index
	for i < len(msgs) && IsStandaloneSummary(msgs[i]) {
		i++
	}
	if i == len(msgs) {
		return i, false
	}
	for i > 0 && !IsStandaloneSummary(msgs[i-1]) && (msgs[i].Role == RoleTool || Clashes(msgs[i-1], msgs[i])) {
		i--
	}
	return i, true
}

// HasFoldable reports whether msgs hold a message a summary could stand
// for: one that is neither a system message nor a standalone summary.
func HasFoldable(msgs []Message) bool {
	for _, m := range msgs {
		if !IsSystem(m) && !IsStandaloneSummary(m) {
			return true
		}
	}
	return false
}
