package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/tokens"
)

// replay runs "compact replay": it reads and checks every input first, so
// a bad one stops the command before anything is printed, then replays
// the conversations under each setting and prints the results.
func (c *cli) replay(ctx context.Context, args []string) int {
	o, err := parseReplayArgs(args, c.stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	files, err := probeFiles(o.paths)
	if err != nil {
		say(c.stderr, "compact: replay: %s\n", errText(err))
		return exitUsage
	}
	convs, model, err := c.replayInputs(o, files)
	if err != nil {
		say(c.stderr, "compact: %s\n", errText(err))
		return exitError
	}
	if o.model != "" {
		model = o.model
	}
	if o.prices == "" && o.model == "" {
		o.prices = model // a logged request's model prices it
	}
	prices, err := o.priceTables()
	if err != nil {
		say(c.stderr, "compact: replay: %s\n", errText(err))
		return exitUsage
	}
	enc := tokens.EncodingForModel(model)
	tc, err := tokens.ForEncoding(enc)
	if err != nil {
		say(c.stderr, "compact: replay: %s\n", errText(err))
		return exitError
	}
	rep := &replayReport{Model: model, Encoding: enc, Inputs: files, Joined: o.join,
		Interval: o.interval.String(), UserDelay: o.userDelay.String(), CacheTTL: o.cacheTTL}
	for _, cv := range convs {
		rep.Conversations++
		rep.Messages += len(cv.msgs)
	}
	recall := newRecallCache()
	p := startProgress(c.stderr, c.progress, len(o.settings)*len(convs), "")
	code := exitOK
	var charts []chartSeries
	for i, s := range o.settings {
		r := &replayer{o: o, s: s, tc: tc, model: model, prices: prices, logger: loggerFor(c.stderr, o.verbose)}
		t := &tally{compactions: map[string]int{}, bills: make([]models.Tokens, len(prices)),
			sumBills: make([]models.Tokens, len(prices)), minEnd: -1}
		for j, cv := range convs {
			p.set(i*len(convs)+j, s.name+" "+filepath.Base(cv.name))
			end, err := r.run(ctx, cv, t)
			if err == nil {
				err = scoreFacts(ctx, cv, end, t, recall)
			}
			if err != nil {
				p.finish()
				say(c.stderr, "compact: replay: %s: %s: %s\n", s.name, cv.name, errText(err))
				return exitError
			}
		}
		rep.add(s, t, prices)
		ch := chartSeries{Title: s.name, Points: t.points, Threshold: t.threshold, Window: s.window}
		if s.dropOldest {
			ch.Threshold = 0 // it drops at the window, and has no threshold
		}
		charts = append(charts, ch)
		if t.overWindow > 0 {
			code = exitError
		}
	}
	p.finish()
	if err := rep.write(c.stdout, o.json); err != nil {
		say(c.stderr, "compact: replay: %s\n", errText(err))
		return exitError
	}
	if o.html != "" {
		if err := writeReplayPage(o.html, rep, charts); err != nil {
			say(c.stderr, "compact: replay: %s\n", errText(err))
			return exitError
		}
	}
	for _, s := range rep.Settings {
		if s.OverWindow > 0 {
			say(c.stderr, "compact: replay: %s: %s over the usable window of %s\n",
				s.Name, plural(s.OverWindow, "request"), plural(s.Usable, "token"))
		}
	}
	return code
}

// replayInputs reads and checks every file, and returns the conversations
// to replay (one per file, or one of them all with -join) and the model a
// logged request names ("" when none does). A file that is not a valid
// history is an error naming the file and the message, as in the
// command's other modes.
func (c *cli) replayInputs(o *replayOptions, files []string) ([]*conversation, string, error) {
	var parts [][]compact.Message
	model := ""
	for _, f := range files {
		t, err := c.read(f)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %s", f, errText(err))
		}
		msgs := t.msgs
		if ps := compact.Problems(msgs); len(ps) > 0 {
			if !o.repair {
				err := &inputError{index: ps[0].Index, msg: ps[0].Detail + " (-repair fixes it)"}
				return nil, "", fmt.Errorf("%s: %s", f, errText(err))
			}
			msgs, _ = compact.RepairToolPairs(msgs)
			if err := compact.Validate(msgs); err != nil {
				return nil, "", fmt.Errorf("%s: after repair: %s", f, errText(err))
			}
		}
		if model == "" {
			model = t.model
		}
		parts = append(parts, msgs)
	}
	if !o.join {
		convs := make([]*conversation, len(parts))
		for i, msgs := range parts {
			convs[i] = newConversation(files[i], msgs)
		}
		return convs, model, nil
	}
	joined, err := joinConversations(parts)
	if err != nil {
		return nil, "", err
	}
	name := strings.Join(files, " + ")
	if len(files) > 2 {
		name = plural(len(files), "file") + " joined"
	}
	return []*conversation{newConversation(name, joined)}, model, nil
}

// joinConversations makes one conversation of several, in order: the
// first keeps its system prompt and the later ones lose theirs (one agent
// has one), the seams are joined as compact.Join joins them, and a tool
// call a part left unanswered at its end, which nothing answers once
// another part follows, is removed as -repair removes it.
func joinConversations(parts [][]compact.Message) ([]compact.Message, error) {
	trimmed := make([][]compact.Message, len(parts))
	for i, msgs := range parts {
		if i == 0 {
			trimmed[i] = msgs
			continue
		}
		for _, m := range msgs {
			if m.Role != compact.RoleSystem {
				trimmed[i] = append(trimmed[i], m)
			}
		}
	}
	joined, _ := compact.RepairToolPairs(compact.Join(trimmed...))
	if err := compact.Validate(joined); err != nil {
		return nil, fmt.Errorf("the joined conversation: %w", err)
	}
	return joined, nil
}

// scoreFacts counts, in t, the facts of cv present in the history it
// ended with (the last request and its reply), and of those that are not, the ones context_search finds in the
// archive of the whole conversation.
func scoreFacts(ctx context.Context, cv *conversation, end []compact.Message, t *tally, rc *recallCache) error {
	var b strings.Builder
	for _, m := range end {
		b.WriteString(normSpace(compact.Text(m) + " " + msg.ToolCallText(m)))
		b.WriteByte('\n')
	}
	text := b.String()
	for k, list := range cv.facts.lists() {
		for _, fact := range list {
			t.kinds[k].n++
			if survives(fact, text) {
				t.kinds[k].present++
				continue
			}
			t.lost++
			found, err := rc.finds(ctx, cv, fact)
			if err != nil {
				return fmt.Errorf("recall: %w", err)
			}
			if found {
				t.recoverable++
			}
		}
	}
	return nil
}

// recallCache keeps one archive per conversation, and what context_search
// answered for each fact, across settings.
type recallCache struct {
	archives map[*conversation]*recaller
	answers  map[recallQuestion]bool
}

type recallQuestion struct {
	conv *conversation
	fact string
}

func newRecallCache() *recallCache {
	return &recallCache{archives: map[*conversation]*recaller{}, answers: map[recallQuestion]bool{}}
}

// finds reports whether context_search finds fact verbatim in cv's archive.
func (rc *recallCache) finds(ctx context.Context, cv *conversation, fact string) (bool, error) {
	q := recallQuestion{cv, fact}
	if found, ok := rc.answers[q]; ok {
		return found, nil
	}
	r, ok := rc.archives[cv]
	if !ok {
		var err error
		if r, err = newRecaller(ctx, cv.msgs); err != nil {
			return false, err
		}
		rc.archives[cv] = r
	}
	found, err := r.finds(ctx, fact)
	if err != nil {
		return false, err
	}
	rc.answers[q] = found
	return found, nil
}
