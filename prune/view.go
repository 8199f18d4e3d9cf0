package prune

import "github.com/contextkit/compact/internal/msg"

// view is what Prune knows about a history before it changes anything:
// each message's tokens, which call each tool result answers, and what is
// protected.
type view struct {
	msgs   []Message
	counts []int // tokens of each message

	uses     []toolUse // every tool call, in order
	useOf    []int     // per message: for a tool result, the use it answers; else -1
	firstUse []int     // per message: for an assistant turn, its first call's use; else -1
	// recentFrom is the first of the kept tool uses (WithKeepToolUses):
	// uses[recentFrom:] are never masked or shortened.
	recentFrom int

	from, to    int // messages[from:to] may be changed; [to:] is the tail
	pendingFrom int // first message of a pending tool-call group at the end; len when none
	latestUser  int // the latest real user message, or -1
	newestImage int // the newest message with an image, or -1

	rules map[string]ToolRule
}

// toolUse is one tool call.
type toolUse struct {
	id, name, args string
}

func newView(msgs []Message, cfg config) *view {
	n := len(msgs)
	v := &view{
		msgs: msgs, counts: make([]int, n), useOf: make([]int, n), firstUse: make([]int, n),
		pendingFrom: n, latestUser: msg.LastIndex(msgs, 0, msg.IsRealUser), newestImage: msg.LastIndex(msgs, 0, msg.HasImages),
		rules: cfg.rules,
	}
	for i := range msgs {
		v.counts[i] = cfg.counter.CountMessage(msgs[i])
	}
	v.pair()
	v.recentFrom = max(len(v.uses)-cfg.keep, 0)

	v.from, v.to = 0, msg.AlignCut(msgs, max(n-defaultTail, 0), 0)
	if cfg.rangeSet {
		v.from = min(max(cfg.from, 0), n)
		v.to = min(max(cfg.to, v.from), n)
	}
	return v
}

// pair finds the call each tool result answers, as Validate pairs them: the
// earliest unanswered call with that id in the group of the assistant turn
// before it. It also finds a pending group at the end: an assistant turn
// followed only by tool results, with a call still unanswered.
func (v *view) pair() {
	type open struct {
		use      int
		id       string
		answered bool
	}
	var group []open
	at := -1 // the open group's assistant turn
	for i, m := range v.msgs {
		v.useOf[i], v.firstUse[i] = -1, -1
		switch m.Role {
		case msg.RoleAssistant:
			group, at = group[:0], i
			v.firstUse[i] = len(v.uses)
			for _, c := range m.ToolCalls {
				group = append(group, open{use: len(v.uses), id: c.ID})
				v.uses = append(v.uses, toolUse{id: c.ID, name: c.Function.Name, args: c.Function.Arguments})
			}
		case msg.RoleTool:
			for k := range group {
				if c := &group[k]; !c.answered && c.id != "" && c.id == m.ToolCallID {
					c.answered = true
					v.useOf[i] = c.use
					break
				}
			}
		default:
			group, at = group[:0], -1
		}
	}
	for _, c := range group {
		if !c.answered && at >= 0 {
			v.pendingFrom = at
			break
		}
	}
}

// prunable reports whether message i may be changed by the rules that work
// on the range: inside it, and neither a system message, a summary, the
// latest real user message nor part of a pending group.
func (v *view) prunable(i int) bool {
	m := v.msgs[i]
	return i >= v.from && i < v.to && i < v.pendingFrom && i != v.latestUser &&
		!msg.IsSystem(m) && !msg.IsSummary(m)
}

// recent reports whether use u is one of the kept tool uses; -1 (no use)
// never is.
func (v *view) recent(u int) bool { return u >= v.recentFrom }

// use returns the call tool result i answers; ok is false when it answers
// none.
func (v *view) use(i int) (toolUse, bool) {
	if u := v.useOf[i]; u >= 0 {
		return v.uses[u], true
	}
	return toolUse{}, false
}

// rule returns the rule for the tool result i answers, if any.
func (v *view) rule(i int) (ToolRule, bool) {
	u, ok := v.use(i)
	if !ok {
		return ToolRule{}, false
	}
	r, ok := v.rules[u.name]
	return r, ok
}

// keepsResult reports whether tool result i must stay exactly as it is
// whatever its age: its tool is NeverMask, or it is already a stand-in.
func (v *view) keepsResult(i int) bool {
	if r, ok := v.rule(i); ok && r.NeverMask {
		return true
	}
	return isPruned(v.msgs[i])
}

// maskable reports whether tool result i may be masked or deduplicated.
func (v *view) maskable(i int) bool {
	return v.msgs[i].Role == msg.RoleTool && v.counts[i] >= minSaving && v.prunable(i) &&
		!v.recent(v.useOf[i]) && !v.keepsResult(i)
}
