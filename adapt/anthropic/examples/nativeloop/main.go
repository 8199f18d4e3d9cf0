// Command nativeloop is an agent loop on the official Anthropic Go SDK v2
// that lets the provider manage its context (Anthropic's compaction and
// tool-result clearing, set by a NativeEngine), reads back what the
// provider did, and compacts with compact's own engine when the provider's
// compaction fails. The model is a local server speaking the Messages API
// that the program starts itself, so it runs offline:
//
//	go run ./examples/nativeloop
//
// A session.Session keeps the conversation: every message stays in its log
// whoever compacts, so its recall tools find what the provider folded as
// they find what compact's engine folds, and Session.RecordCompaction makes the
// provider's compaction the session's.
//
// The same code runs against the real API: drop the base URL and the
// scripted server, and give the client a key. The server fails one
// compaction on purpose, as the API does when compaction is unavailable.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/contextkit/compact"
	adapt "github.com/contextkit/compact/adapt/anthropic"
	"github.com/contextkit/compact/session"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// maxRequests bounds the loop, as a real agent bounds its steps.
const maxRequests = 80

// run drives the agent until the model stops calling tools.
func run(ctx context.Context, w io.Writer) error {
	srv := newModelServer()
	defer srv.Close()
	client := anthropic.NewClient(option.WithoutEnvironmentDefaults(), option.WithAPIKey("local"),
		option.WithBaseURL(srv.URL), option.WithMaxRetries(0))

	// One engine per conversation. The fallback's threshold is where the
	// provider compacts: an 80,000-token window puts it at 53,856 tokens,
	// over the API's lowest trigger (50,000). Use the model's real window.
	// Clearing old tool results (on by default) would keep this loop of
	// large reads under the trigger for long; it is off here to show the
	// provider's compaction.
	engine := adapt.NewNativeEngine(compact.New(compact.WithContextWindow(80_000)),
		adapt.WithToolClearing(false),
		adapt.WithInstructions("Summarise the task, the files read and what they held. Call no tools."))

	// The Session keeps the conversation: every message in its log (a
	// store.Memory here; a durable store in production), whoever compacts,
	// and the recall tools that read the log back.
	sess, err := session.Open(ctx, "nativeloop", engine, session.WithRecall(true))
	if err != nil {
		return err
	}
	defer func() { _ = sess.Close(ctx) }()

	// h is the last request with what followed it, as the API's blocks:
	// the provider's compaction blocks live only there (the session holds
	// their summaries), so each request is the session's history restored
	// onto them.
	h := adapt.History{
		System: []anthropic.TextBlockParam{{
			Text:         "You are a coding agent. Read the files you need with read_file, then answer.",
			CacheControl: anthropic.CacheControlEphemeralParam{TTL: anthropic.CacheControlEphemeralTTLTTL1h},
		}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(
			"Find where the retry budget is configured in this repository and tell me its default."))},
	}
	if first, err := adapt.Convert(h); err != nil || sess.Append(ctx, first.Messages...) != nil {
		return fmt.Errorf("starting the session: %v", err)
	}
	provider, own := 0, 0
	showPrompt := false // after the session recorded a provider's compaction
	for req := 1; req <= maxRequests; req++ {
		// Before every request: compact's engine compacts only when the
		// provider cannot (it failed lately, or the request would not fit).
		res, err := sess.Compress(ctx)
		switch {
		case errors.Is(err, compact.ErrPaused), errors.Is(err, compact.ErrBackoff), errors.Is(err, session.ErrBusy),
			errors.Is(err, compact.ErrNoSavings), errors.Is(err, compact.ErrNothingToCompress):
			fmt.Fprintf(w, "request %d: not compacting now, a normal state: %v\n", req, err)
		case err != nil:
			fmt.Fprintf(w, "request %d: compaction failed, sending the history as is: %v\n", req, err)
		case res.Skipped == "":
			own++
			fmt.Fprintf(w, "request %d: compact's engine compacted %d messages into %d (%d -> %d tokens); fallback: %v\n",
				req, res.MessagesBefore, res.MessagesAfter, res.TokensBefore, res.TokensAfter, res.Fallback)
		}
		live := sess.Messages()
		if h, err = restored(h, live); err != nil {
			return fmt.Errorf("request %d: %w", req, err)
		}
		if showPrompt {
			// The recall line went into the system prompt: the provider's
			// block goes back as the provider wrote it. (Messages counts as
			// a request for the session's pace, so the prompt is read from
			// the request, not asked for apart.)
			prompt := compact.Text(live[0])
			fmt.Fprintf(w, "request %d: the system prompt ends: %.60s...\n", req, prompt[strings.LastIndex(prompt, "\n")+1:])
			showPrompt = false
		}
		resp, err := client.Messages.New(ctx, anthropic.MessageNewParams{
			Model: modelName, MaxTokens: 1024, System: h.System, Messages: h.Messages,
			Tools: []anthropic.ToolUnionParam{{OfTool: &readFileTool}},
		}, engine.RequestOptions()...)
		if err != nil {
			if engine.RecordFailure(h, err) {
				fmt.Fprintf(w, "request %d: native compaction failed (%s); compact's engine takes over\n", req, errorCode(err))
				continue // send again: compact's engine compacts first
			}
			return fmt.Errorf("request %d: %w", req, err)
		}
		// What the provider did, and its usage (Record calls UpdateUsage).
		native, err := engine.Record(h, resp)
		if err != nil {
			return fmt.Errorf("request %d: %w", req, err)
		}
		// The whole response goes into the history and the session's log,
		// compaction block and all; then the session records the
		// provider's compaction, so that its history is the provider's.
		if h, err = appendTurns(ctx, sess, h, resp.ToParam()); err != nil {
			return fmt.Errorf("request %d: %w", req, err)
		}
		if native != nil && native.SummaryIndex >= 0 {
			if err := sess.RecordCompaction(ctx, native); err != nil {
				return fmt.Errorf("request %d: %w", req, err)
			}
			provider++
			fmt.Fprintf(w, "request %d: the provider compacted %d messages into its summary (%d -> %d tokens); the session recorded it\n",
				req, native.SummarizedTo-native.SummarizedFrom+1, native.TokensBefore, native.TokensAfter)
			showPrompt = true
		} else if native != nil {
			fmt.Fprintf(w, "request %d: the provider cleared %d old tool results\n", req, len(native.Pruned))
		}
		if resp.StopReason != anthropic.StopReasonToolUse {
			fmt.Fprintf(w, "request %d: answer: %s\n", req, text(resp))
			fmt.Fprintf(w, "compactions: %d by the provider, %d by compact's engine\n", provider, own)
			return recall(ctx, w, sess)
		}
		var results []anthropic.ContentBlockParamUnion
		for _, b := range resp.Content {
			if b.Type == "tool_use" {
				out, isError := runTool(b.Input)
				results = append(results, anthropic.NewToolResultBlock(b.ID, out, isError))
			}
		}
		if h, err = appendTurns(ctx, sess, h, anthropic.NewUserMessage(results...)); err != nil {
			return fmt.Errorf("request %d: %w", req, err)
		}
	}
	return fmt.Errorf("no answer after %d requests", maxRequests)
}

// restored is the session's history msgs as the API takes it: each message
// h holds comes back as h's blocks (a compaction block of the provider's
// included, byte for byte), the others are converted.
func restored(h adapt.History, msgs []compact.Message) (adapt.History, error) {
	conv, err := adapt.Convert(h)
	if err != nil {
		return adapt.History{}, err
	}
	return conv.Restore(msgs)
}

// appendTurns appends turns to h and their messages to the session's log,
// and returns h with them.
func appendTurns(ctx context.Context, sess *session.Session, h adapt.History, turns ...anthropic.MessageParam) (adapt.History, error) {
	before, err := adapt.Convert(h)
	if err != nil {
		return adapt.History{}, err
	}
	h.Messages = append(slices.Clone(h.Messages), turns...)
	after, err := adapt.Convert(h)
	if err != nil {
		return adapt.History{}, err
	}
	return h, sess.Append(ctx, after.Messages[len(before.Messages):]...)
}

// recall shows that what the provider folded stays readable:
// context_search (a tool the host offers the model with s.Tools()) finds a
// file the model read before the provider's compaction.
func recall(ctx context.Context, w io.Writer, sess *session.Session) error {
	for _, t := range sess.Tools() {
		if t.Definition.Function.Name != session.ToolSearch {
			continue
		}
		out, err := t.Handle(ctx, `{"query":"retry/part1.go"}`)
		if err != nil {
			return err
		}
		var found struct{ Matches []struct{ Seq int } }
		if err := json.Unmarshal(out, &found); err != nil {
			return err
		}
		if len(found.Matches) == 0 {
			return fmt.Errorf("context_search found nothing: %s", out)
		}
		var seqs []int
		for _, m := range found.Matches {
			seqs = append(seqs, m.Seq)
		}
		fmt.Fprintf(w, "context_search finds part1.go, folded by the provider, at seqs %v\n", seqs)
	}
	return nil
}

// errorCode is the API's error_code of err, or its status.
func errorCode(err error) string {
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		return err.Error()
	}
	if code := apiErr.ErrorCode(); code != "" {
		return string(code)
	}
	return fmt.Sprint(apiErr.StatusCode)
}

// text joins the text blocks of a response.
func text(m *anthropic.Message) string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, " ")
}

var readFileTool = anthropic.ToolParam{
	Name:        "read_file",
	Description: anthropic.String("Read a file of the repository."),
	InputSchema: anthropic.ToolInputSchemaParam{
		Properties: map[string]any{"path": map[string]any{"type": "string"}},
		Required:   []string{"path"},
	},
}

// runTool answers a read_file call with a made-up Go file of about 2,500
// tokens, as large source files are.
func runTool(input json.RawMessage) (string, bool) {
	var args struct{ Path string }
	if err := json.Unmarshal(input, &args); err != nil {
		return "error: " + err.Error(), true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\npackage retry\n\n", args.Path)
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "// helper%d waits between attempts and reports whether to go on.\nfunc helper%d(attempt int) bool { return attempt < %d }\n", i, i, i+2)
	}
	if strings.HasSuffix(args.Path, "part9.go") {
		b.WriteString("\n// DefaultBudget is how many attempts a call gets.\nconst DefaultBudget = 3\n")
	}
	return b.String(), false
}
