package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/contextkit/compact/session/store"
	"math"
	"slices"
	"time"
)

// Search limits: how many messages an answer lists unless told, and at
// most; how many matching lines of one message it shows.
const (
	defaultSearchLimit = 20
	maxSearchLimit     = 100
	maxHitsPerMessage  = 3
)

// SearchTimeout bounds one context_search: past it, the search answers with
// what it found and a cursor to go on from. RE2 keeps each message's scan
// linear; this keeps the whole archive's bounded.
const SearchTimeout = 3 * time.Second

// scanPage is how many records a search reads from the store at a time
// when it scans the log.
const scanPage = 256

type searchArgs struct {
	Query  string  `json:"query,omitempty"`
	Regex  bool    `json:"regex,omitempty"`
	Role   string  `json:"role,omitempty"`
	Tool   string  `json:"tool,omitempty"`
	Limit  *int    `json:"limit,omitempty"`
	Cursor *cursor `json:"cursor,omitempty"`
}

type searchAnswer struct {
	Matches   []searchMatch `json:"matches"`
	Truncated bool          `json:"truncated,omitempty"`
	More      bool          `json:"more,omitempty"`
	Stopped   bool          `json:"stopped,omitempty"`
	Next      *searchArgs   `json:"next,omitempty"`
	Note      string        `json:"note,omitempty"`
}

type searchMatch struct {
	Seq      int64       `json:"seq"`
	Role     string      `json:"role"`
	Tool     string      `json:"tool,omitempty"`
	Calls    []string    `json:"calls,omitempty"`
	Hits     []searchHit `json:"hits"`
	MoreHits int         `json:"more_hits,omitempty"`
}

// searchHit is one matching line: its number and the byte offset of the
// match in the message's text, both as context_expand takes them.
type searchHit struct {
	Line    int    `json:"line"`
	Offset  int    `json:"offset"`
	Snippet string `json:"snippet"`
}

// search answers context_search in at most tokens tokens.
func (s *Session) search(ctx context.Context, raw []byte, tokens int) (any, error) {
	var args searchArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	if args.Query == "" && args.Cursor != nil {
		return nil, badArgs(`"query" is missing: a cursor goes on with the search it came from, so send that search's query (and filters) again with it`)
	}
	m, err := newMatcher(args.Query, args.Regex)
	if err != nil {
		return nil, err
	}
	if err := checkRole(args.Role); err != nil {
		return nil, err
	}
	if err := checkToolName(args.Tool); err != nil {
		return nil, err
	}
	limit := defaultSearchLimit
	if args.Limit != nil {
		if limit = *args.Limit; limit < 1 || limit > maxSearchLimit {
			return nil, badArgs(`"limit" must be between 1 and %d; got %d`, maxSearchLimit, limit)
		}
	}
	var after int64
	if args.Cursor != nil {
		after = args.Cursor.seq
	}
	found, scanned, stopped, err := s.find(ctx, m, args, after, limit+1)
	if err != nil {
		return nil, err
	}
	return s.searchAnswer(args, found, limit, scanned, stopped, tokens), nil
}

// find returns up to want matches after seq after, oldest first; scanned
// is the last seq it looked at, stopped is set when it ran out of time
// before the end of the log.
func (s *Session) find(ctx context.Context, m *matcher, args searchArgs, after int64, want int) (
	found []searchMatch, scanned int64, stopped bool, err error) {
	tctx, cancel := context.WithTimeout(ctx, s.searchTimeout)
	defer cancel()
	src := s.source(m, after)
	names := s.newCalls()
	scanned = after
	for len(found) < want {
		recs, done, err := src(tctx, want-len(found))
		if err != nil {
			if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				return found, scanned, true, nil
			}
			return nil, 0, false, err
		}
		for _, r := range recs {
			if tctx.Err() != nil && ctx.Err() == nil {
				return found, scanned, true, nil
			}
			names.learn(r.Message)
			match, ok, err := s.matchRecord(tctx, m, args, names, r)
			if err != nil {
				if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
					return found, scanned, true, nil
				}
				return nil, 0, false, err
			}
			scanned = r.Seq
			if ok {
				found = append(found, match)
				if len(found) == want {
					return found, scanned, false, nil
				}
			}
		}
		if done {
			break
		}
	}
	return found, scanned, false, nil
}

// source returns what feeds a search the records to check, oldest first,
// after seq after: the store's Searcher when it has one and the query (or
// texts one of which every match holds) can use it, the log page by page
// otherwise. Each call returns the next batch, with done set at the end.
func (s *Session) source(m *matcher, after int64) func(ctx context.Context, want int) ([]store.Record, bool, error) {
	if sr, ok := s.store.(store.Searcher); ok && len(m.literals) > 0 {
		return s.indexed(sr, m.literals, after)
	}
	return func(ctx context.Context, _ int) ([]store.Record, bool, error) {
		if after >= maxSeq {
			return nil, true, nil // no log reaches past it
		}
		recs, err := s.store.Read(ctx, s.id, after+1, after+scanPage)
		if err != nil {
			return nil, false, err
		}
		if len(recs) > 0 {
			after = recs[len(recs)-1].Seq
		}
		return recs, len(recs) < scanPage, nil
	}
}

// indexed feeds a search from the Searcher: the records holding any of
// texts. Each text is looked up a batch at a time; a batch of records goes
// out up to the first point where a text has more to fetch, so none before
// it is missed, and a text whose lookup came back short is not asked again.
func (s *Session) indexed(sr store.Searcher, texts []string, after int64) func(ctx context.Context, want int) ([]store.Record, bool, error) {
	type lookup struct {
		text string
		buf  []store.Record // fetched, not yet handed out; oldest first
		last int64          // the last seq fetched
		done bool           // the store has no more
	}
	looks := make([]*lookup, len(texts))
	for i, t := range texts {
		looks[i] = &lookup{text: t, last: after}
	}
	// The first batch asks for what the search wants; later ones (the
	// filters turned candidates down) for twice as many each time.
	grow := 1
	return func(ctx context.Context, want int) ([]store.Record, bool, error) {
		batch := min(max(want, 1)*grow, 4*scanPage)
		grow *= 2
		horizon := int64(math.MaxInt64)
		for _, l := range looks {
			if !l.done && len(l.buf) == 0 {
				recs, err := sr.Search(ctx, s.id, l.text, l.last, batch)
				if err != nil {
					return nil, false, err
				}
				l.buf, l.done = recs, len(recs) < batch
				if len(recs) > 0 {
					l.last = recs[len(recs)-1].Seq
				}
			}
			if !l.done {
				horizon = min(horizon, l.last)
			}
		}
		var out []store.Record
		finished := true
		for _, l := range looks {
			n := 0
			for n < len(l.buf) && l.buf[n].Seq <= horizon {
				n++
			}
			out = append(out, l.buf[:n]...)
			l.buf = l.buf[n:]
			finished = finished && l.done && len(l.buf) == 0
		}
		slices.SortFunc(out, func(a, b store.Record) int { return cmp.Compare(a.Seq, b.Seq) })
		out = slices.CompactFunc(out, func(a, b store.Record) bool { return a.Seq == b.Seq })
		return out, finished, nil
	}
}

// matchRecord checks r against the query and the filters. Unless the tool
// filter names a recall tool, the recall tools' results and the lines of
// their calls never match: a search would otherwise find its own earlier
// calls, and the answers that quoted what it looks for.
func (s *Session) matchRecord(ctx context.Context, m *matcher, args searchArgs, names *calls, r store.Record) (searchMatch, bool, error) {
	msg := r.Message
	if args.Role != "" && msg.Role != args.Role {
		return searchMatch{}, false, nil
	}
	tool, err := names.tool(ctx, r)
	if err != nil {
		return searchMatch{}, false, err
	}
	asked := isRecallTool(args.Tool)
	if isRecallTool(tool) && !asked {
		return searchMatch{}, false, nil
	}
	called := callNames(msg)
	if args.Tool != "" && tool != args.Tool && !slices.Contains(called, args.Tool) {
		return searchMatch{}, false, nil
	}
	text := store.SearchText(msg)
	var hidden []span
	if !asked {
		hidden = recallSpans(msg)
	}
	spans, more := m.hits(text, maxHitsPerMessage, hidden)
	if len(spans) == 0 {
		return searchMatch{}, false, nil
	}
	out := searchMatch{Seq: r.Seq, Role: msg.Role, Tool: tool, Calls: called, MoreHits: more}
	for _, sp := range spans {
		snip, line := snippet(text, sp, hidden)
		out.Hits = append(out.Hits, searchHit{Line: line, Offset: sp.start, Snippet: snip})
	}
	return out, true, nil
}

// searchAnswer fits the matches found into an answer of at most tokens
// tokens and says how to go on.
func (s *Session) searchAnswer(args searchArgs, found []searchMatch, limit int, scanned int64, stopped bool, tokens int) searchAnswer {
	next := args
	next.Cursor = &cursor{set: true, seq: maxSeq}
	whole := s.echoes(tokens, next)
	if !whole {
		// Too long to repeat: the model sends them again.
		next.Query, next.Tool = "", ""
	}
	next.Cursor = nil
	b := s.newBudget(tokens, next)
	ans := searchAnswer{Matches: []searchMatch{}}
	shown := found[:min(len(found), limit)]
	for i, match := range shown {
		if !b.take(match) {
			if i == 0 {
				// Not even one fits whole: show its first line, cut.
				match = fitMatch(b, match)
				ans.Matches = append(ans.Matches, match)
			}
			ans.Truncated = true
			break
		}
		ans.Matches = append(ans.Matches, match)
	}
	var cur int64
	switch {
	case ans.Truncated:
		cur = ans.Matches[len(ans.Matches)-1].Seq
		ans.Note = fmt.Sprintf("answer cut to fit %d tokens; call %s with next for the matches after seq %d", s.toolBudget, ToolSearch, cur)
	case len(found) > limit:
		cur, ans.More = shown[len(shown)-1].Seq, true
		ans.Note = fmt.Sprintf("more messages match; call %s with next for those after seq %d", ToolSearch, cur)
	case stopped:
		cur, ans.Stopped = scanned, true
		ans.Note = fmt.Sprintf("the search stopped after %s, having looked through seq %d; call %s with next to search on",
			s.searchTimeout, scanned, ToolSearch)
	case len(found) == 0:
		ans.Note = "no archived message of this conversation matches"
		return ans
	default:
		return ans
	}
	next.Cursor = &cursor{set: true, seq: cur}
	ans.Next = &next
	if !whole {
		ans.Note += "; next leaves out the query and tool filter, too long to repeat: send them again with its cursor"
	}
	return ans
}

// fitMatch cuts match to its first hit, its snippet shortened to what b has
// left.
func fitMatch(b *budget, match searchMatch) searchMatch {
	match.MoreHits += len(match.Hits) - 1
	hit := match.Hits[0]
	match.Hits = nil
	n := b.fit(hit.Snippet, func(t string) any {
		m := match
		m.Hits = []searchHit{{Line: hit.Line, Offset: hit.Offset, Snippet: t + ellipsis}}
		return m
	})
	hit.Snippet = hit.Snippet[:n] + ellipsis
	match.Hits = []searchHit{hit}
	b.take(match)
	return match
}
