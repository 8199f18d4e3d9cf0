package session

import (
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/trigger"
	"github.com/contextkit/compact/tokens"
)

// This file is the next request as the session sees it: the live history
// (or a request pruned to fit, see background_limit.go), the tool
// definitions it carries, its size with what the provider's usage reports
// showed counting misses, and the engine's limits it is held to.

// requestState is what a Session knows of its requests. Session.mu guards
// it.
type requestState struct {
	// tools are the host's tool definitions as last named (compact.WithTools
	// given to ShouldCompress or Compress); toolTokens what they and the
	// recall tools the host did not name take in a request.
	tools      []openai.Tool
	toolTokens int
	// threshold, window and usable are the engine's, as its Status last
	// reported them; model is the engine's model then.
	threshold, window, usable int
	model                     string
	// measure is what the usage reports passed to UpdateUsage showed of
	// the requests Messages handed out beyond their counts (tool
	// definitions the host did not name, images, the provider's framing):
	// the Compressor's formula (see package internal/trigger), over the
	// session's own count.
	measure trigger.Measure
	// pruned is the request a request path pruned to fit the hard limit,
	// for the history at version pruned.version; nil when none.
	pruned *prunedRequest
	pace   pace
	// lastActive is when the session last handed out a request or was told
	// a request's usage (or was opened); sentAt when it last handed out a
	// request, and installedAt when the history was last replaced.
	lastActive, sentAt, installedAt time.Time
	// waiting counts request paths blocked on a compaction right now.
	waiting int
}

// recallDefinitions are the definitions of the recall tools.
func recallDefinitions() []openai.Tool {
	return []openai.Tool{searchDefinition(), expandDefinition(), describeDefinition()}
}

// setTools records host as the tools the requests carry, when it names
// any, and counts them with the recall tools it does not name.
func (s *Session) setTools(host []openai.Tool) {
	s.mu.Lock()
	if len(host) == 0 && s.req.tools != nil {
		s.mu.Unlock()
		return
	}
	if len(host) > 0 {
		s.req.tools = append([]openai.Tool(nil), host...)
	}
	all := s.toolsLocked()
	s.mu.Unlock()
	n := tokens.CountTools(s.counter, all)
	s.mu.Lock()
	s.req.toolTokens = n
	s.mu.Unlock()
}

// toolsLocked returns the tools a request carries: the host's, and the
// recall tools among them or added to them.
func (s *Session) toolsLocked() []openai.Tool {
	named := map[string]bool{}
	for _, t := range s.req.tools {
		if t.Function != nil {
			named[t.Function.Name] = true
		}
	}
	all := append([]openai.Tool(nil), s.req.tools...)
	for _, t := range s.recallDef {
		if !named[t.Function.Name] {
			all = append(all, t)
		}
	}
	return all
}

// requestTokensLocked is what the next request takes: the live history,
// the tools, and incoming when it is not nil.
func (s *Session) requestTokensLocked(incoming *compact.Message) int {
	n := s.tokens + s.req.toolTokens
	if incoming != nil {
		n += s.counter.CountMessage(*incoming)
	}
	if n == 0 {
		return 0
	}
	return n + tokens.ReplyPrimingTokens
}

// nextTokensLocked is the count of the next request Messages hands out:
// the pruned one while it is current, the live history and the tools
// otherwise.
func (s *Session) nextTokensLocked() int {
	if p := s.req.pruned; p != nil && p.version == s.version {
		return p.tokens
	}
	return s.requestTokensLocked(nil)
}

// sizeLocked is the size of a request counted at n, as the session judges
// every request against its marks: the count, and what usage reports
// showed counting misses (at least the last report, while no compaction
// made it stale and no count of its request says more).
func (s *Session) sizeLocked(n int) int {
	if n == 0 {
		return 0
	}
	return s.req.measure.Estimate(n)
}

// requestSizeLocked is the size of the next request with incoming when
// it is not nil (see sizeLocked), the live history's: what a compaction
// would start from.
func (s *Session) requestSizeLocked(incoming *compact.Message) int {
	return s.sizeLocked(s.requestTokensLocked(incoming))
}

// requestLocked is the next request: the pruned one while it is current,
// the live history otherwise.
func (s *Session) requestLocked() []compact.Message {
	if p := s.req.pruned; p != nil && p.version == s.version {
		return p.msgs
	}
	return s.history
}

// engineOptions returns opts with what the session adds to every
// compaction it asks of its engine: the tools the request carries, and
// the session's id (last, so a caller cannot name another session). opts'
// array is never written.
func (s *Session) engineOptions(opts []compact.CompressOption) []compact.CompressOption {
	s.mu.Lock()
	tools := s.toolsLocked()
	s.mu.Unlock()
	out := append(opts[:len(opts):len(opts)], compact.WithSessionID(s.id))
	if len(tools) > 0 {
		out = append(out[:len(out)-1], compact.WithTools(tools), compact.WithSessionID(s.id))
	}
	return out
}

// refreshLimits reads the engine's threshold and window again.
func (s *Session) refreshLimits() { s.setLimits(s.engine.Status()) }

// setLimits records the engine's threshold and window from st. When the
// engine moved to another model, what usage reports showed counting
// misses is forgotten, as a Compressor forgets it: the count changed.
func (s *Session) setLimits(st compact.Status) {
	usable := st.Usable
	if usable <= 0 {
		usable = st.Window
	}
	s.mu.Lock()
	s.req.threshold, s.req.window, s.req.usable = st.Threshold, st.Window, max(usable, 0)
	if st.Model != s.req.model {
		s.req.measure, s.req.model = trigger.Measure{}, st.Model
	}
	s.mu.Unlock()
}

// installedLocked notes that the history was replaced (a compaction, a
// reload, a Reset): the last usage report no longer says how large the
// next request is at least.
func (s *Session) installedLocked() {
	s.version++
	s.installs++
	s.req.measure.Stale()
	s.req.installedAt = s.now()
}
