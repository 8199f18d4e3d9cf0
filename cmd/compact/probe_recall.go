package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/tokens"
)

// This file asks, for each fact a compaction lost, whether the model could
// get it back: the transcript is archived in a session with recall on, and
// context_search is asked for the fact, as a model would ask.

// maxRecallQuery is the longest query context_search takes; a longer fact
// is searched by its first maxRecallQuery bytes.
const maxRecallQuery = 1000

// recaller searches one transcript's archive.
type recaller struct {
	search func(ctx context.Context, args string) (json.RawMessage, error)
}

// newRecaller archives msgs in a session of its own, in memory.
func newRecaller(ctx context.Context, msgs []compact.Message) (*recaller, error) {
	s, err := session.Open(ctx, "probe", compact.New(), session.WithRecall(true),
		session.WithTokenCounter(tokens.Estimator{}))
	if err != nil {
		return nil, err
	}
	if err := s.Append(ctx, msgs...); err != nil {
		return nil, err
	}
	for _, t := range s.Tools() {
		if t.Definition.Function.Name == session.ToolSearch {
			return &recaller{search: t.Handle}, nil
		}
	}
	return nil, fmt.Errorf("the session offers no %s", session.ToolSearch)
}

// finds reports whether context_search, asked for fact, shows it verbatim
// in a snippet of its first answer.
func (r *recaller) finds(ctx context.Context, fact string) (bool, error) {
	q := fact
	if len(q) > maxRecallQuery {
		n := maxRecallQuery
		for n > 0 && !utf8.RuneStart(q[n]) {
			n--
		}
		q = q[:n]
	}
	args, err := json.Marshal(map[string]string{"query": q})
	if err != nil {
		return false, err
	}
	out, err := r.search(ctx, string(args))
	if err != nil {
		return false, err
	}
	var ans struct {
		Error   string
		Matches []struct{ Hits []struct{ Snippet string } }
	}
	if err := json.Unmarshal(out, &ans); err != nil {
		return false, err
	}
	if ans.Error != "" {
		return false, nil // refused: not found, and listed with -v
	}
	for _, m := range ans.Matches {
		for _, h := range m.Hits {
			if strings.Contains(h.Snippet, q) {
				return true, nil
			}
		}
	}
	return false, nil
}

// recall counts the lost facts context_search gets back verbatim.
type recall struct {
	lost, found int
	missing     []string
}

// probeRecall asks r for every fact the scores lost.
func probeRecall(ctx context.Context, r *recaller, scores ...*score) (recall, error) {
	var rc recall
	for _, s := range scores {
		for _, fact := range s.missing {
			ok, err := r.finds(ctx, fact)
			if err != nil {
				return rc, err
			}
			rc.lost++
			if ok {
				rc.found++
			} else {
				rc.missing = append(rc.missing, fact)
			}
		}
	}
	return rc, nil
}

// cell is "found/lost", "-" when nothing was lost.
func (rc recall) cell() string {
	if rc.lost == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", rc.found, rc.lost)
}
