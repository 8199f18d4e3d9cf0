package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/contextkit/compact/models"
)

// replayReport is what replay prints: -json writes it as it is.
type replayReport struct {
	Model         string          `json:"model"`    // the model counted and priced by default; "" for none
	Encoding      string          `json:"encoding"` // the encoding tokens are counted with
	Inputs        []string        `json:"inputs"`
	Joined        bool            `json:"joined"`
	Conversations int             `json:"conversations"`
	Messages      int             `json:"messages"`
	Interval      string          `json:"interval"`
	UserDelay     string          `json:"user_delay"`
	CacheTTL      string          `json:"cache_ttl"`
	Settings      []settingReport `json:"settings"`
}

// settingReport is one setting's outcome over every conversation.
type settingReport struct {
	Name              string         `json:"name"`
	Window            int            `json:"window"`
	Usable            int            `json:"usable"` // the window less the reply's reserve
	Threshold         int            `json:"threshold"`
	Requests          int            `json:"requests"`
	TokensSent        int            `json:"tokens_sent"`
	PeakRequest       int            `json:"peak_request"`
	OverWindow        int            `json:"over_window"`
	Compactions       map[string]int `json:"compactions"` // by kind: summary, fallback, prune, drop
	SummarizerCalls   int            `json:"summarizer_calls"`
	ModelCalls        int            `json:"summarizer_model_calls"`   // of those, calls to a model (0 for the extractive summarizer)
	SummarizerInput   int            `json:"summarizer_input_tokens"`  // billed prompt tokens (0 for the extractive summarizer)
	SummarizerShared  int            `json:"summarizer_shared_tokens"` // of those, sent as the agent's own history (billed through the cache)
	SummarizerOutput  int            `json:"summarizer_output_tokens"` // billed reply tokens
	ShortEnds         int            `json:"short_verbatim_ends"`      // requests keeping less than 8,000 tokens of the conversation's end verbatim (all of it when shorter)
	ShortestEnd       int            `json:"shortest_verbatim_end"`    // the least such a request kept; -1 when none
	AgentOutputTokens int            `json:"agent_output_tokens"`
	Facts             []factReport   `json:"facts"`
	FactsLost         int            `json:"facts_lost"`
	FactsRecoverable  int            `json:"facts_recoverable"`
	Costs             []costReport   `json:"costs"`
}

// factReport is one kind of fact: how many the conversation had and how
// many the history it ended with (the last request and its reply) held.
type factReport struct {
	Kind    string `json:"kind"`
	Total   int    `json:"total"`
	Present int    `json:"present"`
}

// costReport is a setting's bill under one model's prices. Dollars,
// Equivalent and Relative are null when the prices are unknown.
type costReport struct {
	Model         string   `json:"model"`
	Priced        bool     `json:"priced"`
	CacheLifetime string   `json:"cache_lifetime"`
	CacheRead     int      `json:"cache_read_tokens"`
	CacheWrite    int      `json:"cache_write_tokens"`
	Uncached      int      `json:"uncached_tokens"`
	HitRatio      float64  `json:"hit_ratio"` // cache reads over the requests' input
	Dollars       *float64 `json:"dollars"`   // requests and summarizer, not the agent's replies
	Equivalent    *float64 `json:"base_input_equivalent"`
	Relative      *float64 `json:"relative"` // to the first setting
	AgentOutput   *float64 `json:"agent_output_dollars"`
}

// add appends s's outcome t, priced with each table.
func (r *replayReport) add(s setting, t *tally, prices []priceTable) {
	sr := settingReport{Name: s.name, Window: s.window, Usable: t.usable, Threshold: t.threshold,
		Requests: t.requests, TokensSent: t.sent, PeakRequest: t.peak, OverWindow: t.overWindow,
		Compactions: t.compactions, SummarizerCalls: t.sumCalls, ModelCalls: t.sumModel, SummarizerInput: t.sumInput + t.sumShared,
		SummarizerShared: t.sumShared, SummarizerOutput: t.sumOutput, AgentOutputTokens: t.agentOutput,
		ShortEnds: t.shortEnd, ShortestEnd: t.minEnd,
		FactsLost: t.lost, FactsRecoverable: t.recoverable}
	if s.dropOldest {
		sr.Threshold = 0
	}
	for k, kd := range t.kinds {
		sr.Facts = append(sr.Facts, factReport{Kind: kindNames[k].total, Total: kd.n, Present: kd.present})
	}
	for i, p := range prices {
		b := t.bills[i]
		cr := costReport{Model: p.model, Priced: p.pricing.Known(), CacheLifetime: "none",
			CacheRead: b.CacheRead, CacheWrite: b.CacheWrite, Uncached: b.Uncached}
		if p.pricing.CacheLifetime > 0 {
			cr.CacheLifetime = strings.TrimSuffix(strings.TrimSuffix(p.pricing.CacheLifetime.String(), "0s"), "0m")
		}
		if in := b.CacheRead + b.CacheWrite + b.Uncached; in > 0 {
			cr.HitRatio = float64(b.CacheRead) / float64(in)
		}
		bill := addTokens(b, t.sumBills[i])
		bill.Uncached += t.sumInput
		bill.Output += t.sumOutput
		if d, err := p.pricing.Cost(bill); err == nil {
			eq, _ := p.pricing.Equivalent(bill)
			out, _ := p.pricing.Cost(models.Tokens{Output: t.agentOutput})
			cr.Dollars, cr.Equivalent, cr.AgentOutput = &d, &eq, &out
			if len(r.Settings) == 0 {
				one := 1.0
				cr.Relative = &one
			} else if base := r.Settings[0].Costs[i].Equivalent; base != nil && *base > 0 {
				rel := eq / *base
				cr.Relative = &rel
			}
		}
		sr.Costs = append(sr.Costs, cr)
	}
	r.Settings = append(r.Settings, sr)
}

// write prints the report: as JSON, or as a table with the settings side
// by side.
func (r *replayReport) write(out io.Writer, asJSON bool) error {
	if asJSON {
		data, err := encodeJSON(r)
		if err != nil {
			return err
		}
		_, err = out.Write(data)
		return err
	}
	var text bytes.Buffer // written out whole, its error checked once
	w := &text
	counted := r.Encoding
	if r.Model != "" {
		counted = r.Model + ", " + counted
	}
	what := plural(r.Conversations, "conversation")
	if r.Joined {
		what = plural(len(r.Inputs), "file") + " joined into one conversation"
	}
	fmt.Fprintf(w, "replay of %s, %s; tokens counted with %s; a request every %s", what, plural(r.Messages, "message"), counted, r.Interval)
	if r.UserDelay != "0s" {
		fmt.Fprintf(w, " (+%s after a user message)", r.UserDelay)
	}
	fmt.Fprintln(w)
	var cells strings.Builder // the table, cells separated by tabs
	row := func(label string, cell func(s settingReport) string) {
		cells.WriteString(label + "\t")
		for _, s := range r.Settings {
			cells.WriteString(cell(s) + "\t")
		}
		cells.WriteString("\n")
	}
	row("setting", func(s settingReport) string { return s.Name })
	row("window (usable)", func(s settingReport) string {
		return fmt.Sprintf("%s (%s)", thousands(s.Window), thousands(s.Usable))
	})
	row("threshold", func(s settingReport) string {
		if s.Threshold == 0 {
			return "-"
		}
		return thousands(s.Threshold)
	})
	row("requests", func(s settingReport) string { return thousands(s.Requests) })
	row("tokens sent", func(s settingReport) string { return thousands(s.TokensSent) })
	row("average request", func(s settingReport) string {
		if s.Requests == 0 {
			return "-"
		}
		return thousands(s.TokensSent / s.Requests)
	})
	row("peak request", func(s settingReport) string { return thousands(s.PeakRequest) })
	row("over the window", func(s settingReport) string { return thousands(s.OverWindow) })
	row("compactions", func(s settingReport) string { return compactionCell(s.Compactions) })
	row("summarizer calls", func(s settingReport) string { return thousands(s.SummarizerCalls) })
	row("summarizer tokens in/out", func(s settingReport) string {
		switch {
		case s.ModelCalls == 0 && s.SummarizerCalls > 0:
			return "none: no model called (extractive)"
		case s.ModelCalls == 0:
			return "-"
		}
		cell := thousands(s.SummarizerInput) + "/" + thousands(s.SummarizerOutput)
		if s.SummarizerShared > 0 {
			cell += fmt.Sprintf(" (%s shared)", thousands(s.SummarizerShared))
		}
		return cell
	})
	row("verbatim end < 8,000", func(s settingReport) string {
		if s.ShortEnds == 0 {
			return "0"
		}
		return fmt.Sprintf("%s (least %s)", thousands(s.ShortEnds), thousands(s.ShortestEnd))
	})
	for i := range r.Settings[0].Costs {
		c0 := r.Settings[0].Costs[i]
		row("", func(settingReport) string { return "" })
		row(priceHeading(c0), func(settingReport) string { return "" })
		row("  cache read", func(s settingReport) string { return thousands(s.Costs[i].CacheRead) })
		row("  cache written", func(s settingReport) string { return thousands(s.Costs[i].CacheWrite) })
		row("  uncached", func(s settingReport) string { return thousands(s.Costs[i].Uncached) })
		row("  hit ratio", func(s settingReport) string { return fmt.Sprintf("%.1f%%", 100*s.Costs[i].HitRatio) })
		row("  cost", func(s settingReport) string { return dollarCell(s.Costs[i].Dollars) })
		row("  base input tokens", func(s settingReport) string {
			c := s.Costs[i]
			if c.Equivalent == nil {
				return "unknown"
			}
			cell := millions(*c.Equivalent)
			if c.Relative != nil {
				cell += fmt.Sprintf(" (%.2fx)", *c.Relative)
			}
			return cell
		})
	}
	row("", func(settingReport) string { return "" })
	row("facts present at the end", func(settingReport) string { return "" })
	for k := range r.Settings[0].Facts {
		row("  "+r.Settings[0].Facts[k].Kind, func(s settingReport) string {
			f := s.Facts[k]
			return percentCell(f.Present, f.Total)
		})
	}
	row("facts lost, recoverable", func(s settingReport) string {
		return fmt.Sprintf("%d, %d", s.FactsLost, s.FactsRecoverable)
	})
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if _, err := tw.Write([]byte(cells.String())); err != nil {
		return err
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s0 := r.Settings[0]
	for _, c := range s0.Costs {
		if c.AgentOutput != nil {
			fmt.Fprintf(w, "the agent's replies (%s, the same under every setting) cost %s more under %s\n",
				plural(s0.AgentOutputTokens, "token"), dollarCell(c.AgentOutput), c.Model)
		}
	}
	_, err := out.Write(text.Bytes())
	return err
}

// priceHeading names a price table and its cache.
func priceHeading(c costReport) string {
	if !c.Priced {
		return "prices of " + c.Model + " (unknown)"
	}
	return fmt.Sprintf("prices of %s (cache %s)", c.Model, c.CacheLifetime)
}

// compactionCell is "6 summaries, 2 prunes", "0" when there were none.
func compactionCell(by map[string]int) string {
	kinds := make([]string, 0, len(by))
	for k, n := range by {
		if n > 0 {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return "0"
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = plural(by[k], k)
	}
	return strings.Join(parts, ", ")
}

// dollarCell is "$12.34", "$0.0123" under a dollar, or "unknown".
func dollarCell(d *float64) string {
	switch {
	case d == nil:
		return "unknown"
	case *d < 1:
		return fmt.Sprintf("$%.4f", *d)
	}
	return fmt.Sprintf("$%.2f", *d)
}

// millions writes n as "4.14M", or in full under a million.
func millions(n float64) string {
	if n < 1e6 {
		return thousands(int(n + 0.5))
	}
	return fmt.Sprintf("%.2fM", n/1e6)
}

// percentCell is "k/n (p%)", "-" when n is 0.
func percentCell(k, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", k, n, 100*float64(k)/float64(n))
}
