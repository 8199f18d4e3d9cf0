package msg

// turnSep separates the contents of two turns merged at a seam.
const turnSep = "\n\n"

// Clashes reports whether b may not follow a: two user turns, or two
// assistant turns where the first makes no tool calls (one that does is
// followed by its results, so a clash there is a pairing problem instead).
func Clashes(a, b Message) bool {
	switch {
	case a.Role == RoleUser && b.Role == RoleUser:
		return true
	case a.Role == RoleAssistant && b.Role == RoleAssistant:
		return len(a.ToolCalls) == 0 && a.FunctionCall == nil
	}
	return false
}

// MergeTurns returns a and b as one turn of a's role: a's content then b's
// (strings joined by a blank line, parts lists concatenated), b's tool calls, and
// every other text field of both. Nothing of either is lost.
func MergeTurns(a, b Message) Message {
	out := CloneMessage(a)
	JoinContent(&out, a, b, turnSep)
	out.Refusal = joinNonEmpty(a.Refusal, b.Refusal, turnSep)
	out.ReasoningContent = joinNonEmpty(a.ReasoningContent, b.ReasoningContent, turnSep)
	if out.Name == "" {
		out.Name = b.Name
	}
	if b.ToolCalls != nil {
		out.ToolCalls = CloneMessage(b).ToolCalls
	}
	if b.FunctionCall != nil {
		fc := *b.FunctionCall
		out.FunctionCall = &fc
	}
	return out
}

func joinNonEmpty(a, b, sep string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + sep + b
}

// Join concatenates slices of messages into one new slice, guarding each
// seam between them: where the last message of one part and the first of the
// next are both user turns, or both assistant turns with no tool calls
// between, the second is merged into the first so roles keep alternating.
// Merging keeps everything: string contents are joined by a blank line,
// parts lists are concatenated, and a string meeting a parts list becomes a
// text part. Tool-tool seams are legal and left alone. Seams inside a part
// are not touched. The inputs are not modified.
func Join(parts ...[]Message) []Message {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]Message, 0, n)
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		first := 0
		if len(out) > 0 && Clashes(out[len(out)-1], p[0]) {
			out[len(out)-1] = MergeTurns(out[len(out)-1], p[0])
			first = 1
		}
		for _, m := range p[first:] {
			out = append(out, CloneMessage(m))
		}
	}
	return out
}
