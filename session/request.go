package session

import (
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
)

// This file is the next request as the session sees it: the live history
// (or a request pruned to fit, see background_limit.go), the tool
// definitions it carries, and the engine's limits it is held to.

// requestState is what a Session knows of its requests. Session.mu guards
// it.
type requestState struct {
	// tools are the host's tool definitions as last named (compact.WithTools
	// given to ShouldCompress or Compress); toolTokens what they and the
	// recall tools the host did not name take in a request.
	tools      []openai.Tool
	toolTokens int
	// threshold, window and usable are the engine's, as its Status last
	// reported them.
	threshold, window, usable int
	// pruned is the request a request path pruned to fit the hard limit,
	// for the history at version pruned.version; nil when none.
	pruned *prunedRequest
	pace   pace
	// lastActive is when the session last handed out a request or was told
	// a request's usage (or was opened).
	lastActive time.Time
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

// setLimits records the engine's threshold and window from st.
func (s *Session) setLimits(st compact.Status) {
	usable := st.Usable
	if usable <= 0 {
		usable = st.Window
	}
	s.mu.Lock()
	s.req.threshold, s.req.window, s.req.usable = st.Threshold, st.Window, max(usable, 0)
	s.mu.Unlock()
}
