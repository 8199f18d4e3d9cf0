// Command responsesloop is an agent loop on the Responses API of the
// official OpenAI Go SDK that keeps its own history (store is false, as
// under zero data retention) and compacts it before every request with
// OpenAI's own compaction, falling back to compact's when that fails. The
// model is a local server speaking the Responses API that the program
// starts itself, so it runs offline:
//
//	go run ./examples/responsesloop
//
// A session.Session keeps the conversation: every message stays in its log
// whoever compacts, so its recall tools find what the provider's opaque
// compaction item stands for, and Session.RecordCompaction makes each compaction
// the session's.
//
// The same code runs against the real API: drop the base URL and the
// scripted server, and give the client a key.
//
// The host's other choice is server-side compaction: set ContextManagement
// on the request (see openaigo.NativeEngine) and the provider compacts
// while it answers; the compaction item arrives in the output, and
// openaigo reads it as the history's summary.
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
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/adapt/openaigo"
	"github.com/contextkit/compact/session"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// maxTurns bounds the loop, as a real agent bounds its steps.
const maxTurns = 30

// nativeTimeout bounds a compaction request: past it the fallback
// compacts, so a slow provider never holds the agent up for long.
const nativeTimeout = 30 * time.Second

// run drives the agent until the model stops calling tools.
func run(ctx context.Context, w io.Writer) error {
	srv := newModelServer()
	defer srv.Close()
	client := openai.NewClient(option.WithAPIKey("local"), option.WithBaseURL(srv.URL+"/v1/"), option.WithMaxRetries(0))

	// One engine per conversation. The fallback sets the threshold: a
	// 6,000-token window makes this short run compact a few times; use the
	// model's real window.
	engine := openaigo.NewNativeEngine(client.Responses, modelName,
		compact.New(compact.WithContextWindow(6000), compact.WithModel("gpt-4o")),
		openaigo.WithTimeout(nativeTimeout))

	// The Session keeps the conversation: every message in its log (a
	// store.Memory here; a durable store in production), whoever compacts,
	// and the recall tools that read the log back.
	sess, err := session.Open(ctx, "responsesloop", engine, session.WithRecall(true))
	if err != nil {
		return err
	}
	defer func() { _ = sess.Close(ctx) }()

	// input is the last request with what followed it, as items: the
	// compaction items and the reasoning live only there (the session holds
	// what compact reads of them), so each request is the session's
	// history restored onto them.
	input, err := appendItems(ctx, sess, nil,
		responses.ResponseInputItemParamOfMessage("You are a coding agent. Read the files you need with read_file, search with grep, then answer.",
			responses.EasyInputMessageRoleSystem),
		responses.ResponseInputItemParamOfMessage("Find where the retry budget is configured in this repository and tell me its default.",
			responses.EasyInputMessageRoleUser))
	if err != nil {
		return err
	}
	// system is the system prompt of the last request the session handed
	// out: Messages counts as a request for the session's pace, so the
	// example reads the prompt from what it sends instead of asking again.
	var system string
	request := func() []compact.Message {
		live := sess.Messages()
		if len(live) > 0 {
			system = compact.Text(live[0])
		}
		return live
	}
	for turn := 1; turn <= maxTurns; turn++ {
		if input, err = restored(input, request()); err != nil {
			return fmt.Errorf("turn %d: %w", turn, err)
		}
		// Before every request: compact when the history nears the window,
		// and have the session record it. On error the history is
		// untouched and the agent carries on (a pause, a backoff or nothing
		// to gain is a normal state, not a failure).
		if should, err := openaigo.ShouldCompressItems(engine, input); err == nil && should {
			out, res, err := openaigo.CompressItems(ctx, engine, input)
			if err == nil {
				err = record(ctx, sess, input, out, res)
			}
			switch {
			case errors.Is(err, compact.ErrPaused), errors.Is(err, compact.ErrBackoff),
				errors.Is(err, compact.ErrNoSavings), errors.Is(err, compact.ErrNothingToCompress):
				fmt.Fprintf(w, "turn %d: not compacting now, a normal state: %v\n", turn, err)
			case err != nil:
				fmt.Fprintf(w, "turn %d: compaction failed, sending the history as is: %v\n", turn, err)
			default:
				fmt.Fprintf(w, "turn %d: compacted %d items (%d tokens) into %d (%d tokens) with %s; the session recorded it\n",
					turn, len(input), res.TokensBefore, len(out), res.TokensAfter, res.Summarizer)
				if res.Fallback {
					fmt.Fprintf(w, "turn %d: fallback: %s\n", turn, res.FallbackReason)
				}
				if input, err = restored(out, request()); err != nil {
					return fmt.Errorf("turn %d: %w", turn, err)
				}
			}
		}
		resp, err := client.Responses.New(ctx, responses.ResponseNewParams{
			Model:   modelName,
			Input:   responses.ResponseNewParamsInputUnion{OfInputItemList: input},
			Tools:   tools,
			Store:   openai.Bool(false),
			Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
		})
		if err != nil {
			return fmt.Errorf("turn %d: %w", turn, err)
		}
		// The provider's usage keeps the engine's view of the window exact.
		sess.UpdateUsage(openaigo.UsageFromResponse(resp.Usage))
		turnItems := openaigo.ItemsFromOutput(resp.Output)
		calls := 0
		for _, item := range resp.Output {
			switch item.Type {
			case "function_call":
				calls++
				out := responses.ResponseInputItemParamOfFunctionCallOutput(readFile(item.Arguments.OfString))
				out.OfFunctionCallOutput.CallID = openai.String(item.CallID)
				turnItems = append(turnItems, out)
			case "custom_tool_call":
				calls++
				turnItems = append(turnItems, responses.ResponseInputItemParamOfCustomToolCallOutput(item.CallID, "grep: no matches for "+item.Input))
			}
		}
		if input, err = appendItems(ctx, sess, input, turnItems...); err != nil {
			return fmt.Errorf("turn %d: %w", turn, err)
		}
		if calls == 0 {
			fmt.Fprintf(w, "turn %d: answer: %s\n", turn, resp.OutputText())
			fmt.Fprintf(w, "%d compactions in %d turns\n", engine.Status().Compressions, turn)
			return recall(ctx, w, sess, system)
		}
	}
	return fmt.Errorf("no answer after %d turns", maxTurns)
}

// restored is the session's history msgs as the API takes it: each message
// input holds comes back as input's items (compaction items and reasoning
// included, byte for byte), the others are converted.
func restored(input []responses.ResponseInputItemUnionParam, msgs []compact.Message) ([]responses.ResponseInputItemUnionParam, error) {
	conv, err := openaigo.ConvertItems(input)
	if err != nil {
		return nil, err
	}
	return conv.Restore(msgs)
}

// appendItems appends items to input and their messages to the session's
// log, and returns input with them.
func appendItems(ctx context.Context, sess *session.Session, input []responses.ResponseInputItemUnionParam,
	items ...responses.ResponseInputItemUnionParam) ([]responses.ResponseInputItemUnionParam, error) {
	before, err := openaigo.ConvertItems(input)
	if err != nil {
		return nil, err
	}
	input = append(slices.Clone(input), items...)
	after, err := openaigo.ConvertItems(input)
	if err != nil {
		return nil, err
	}
	return input, sess.Append(ctx, after.Messages[len(before.Messages):]...)
}

// record has the session record res, CompressItems' compaction of input
// into out. res counts items; the session counts messages, so its indexes
// are moved to the messages of input and out as ConvertItems reads them.
// Its Account and Pruned, which count items too, are left out: the session
// checks the rest.
func record(ctx context.Context, sess *session.Session, input, out []responses.ResponseInputItemUnionParam, res *compact.Result) error {
	before, err := openaigo.ConvertItems(input)
	if err != nil {
		return err
	}
	after, err := openaigo.ConvertItems(out)
	if err != nil {
		return err
	}
	m := *res
	m.Messages = after.Messages
	m.MessagesBefore, m.MessagesAfter = len(before.Messages), len(after.Messages)
	m.SummarizedFrom, m.SummarizedTo = messageOf(before, res.SummarizedFrom), messageOf(before, res.SummarizedTo)
	m.SummaryIndex, m.Lifted = messageOf(after, res.SummaryIndex), messageOf(before, res.Lifted)
	m.Account, m.Pruned, m.CarriedFrom = nil, nil, nil
	return sess.RecordCompaction(ctx, &m)
}

// messageOf is the index of the message of conv that item i is part of, or
// -1.
func messageOf(conv *openaigo.ItemConversion, i int) int {
	for j := range conv.Messages {
		if from, to := conv.Items(j); from <= i && i < to {
			return j
		}
	}
	return -1
}

// recall shows that what was compacted stays readable: context_search (a
// tool the host offers the model with s.Tools()) finds a file the model
// read before the first compaction.
func recall(ctx context.Context, w io.Writer, sess *session.Session, prompt string) error {
	fmt.Fprintf(w, "the system prompt ends: %.60s...\n", prompt[strings.LastIndex(prompt, "\n")+1:])
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
		var seqs []int
		for _, m := range found.Matches {
			seqs = append(seqs, m.Seq)
		}
		fmt.Fprintf(w, "context_search finds part1.go, compacted away, at seqs %v\n", seqs)
	}
	return nil
}

var tools = []responses.ToolUnionParam{
	responses.ToolParamOfFunction("read_file", map[string]any{
		"type":       "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}},
		"required":   []string{"path"},
	}, true),
	responses.ToolParamOfCustom("grep"),
}

// readFile answers a read_file call with a made-up Go file of a realistic
// size (about 500 tokens).
func readFile(arguments string) string {
	var args struct{ Path string }
	if err := json.Unmarshal([]byte(arguments), &args); err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\npackage retry\n\n", args.Path)
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "// helper%d waits between attempts and reports whether to go on.\nfunc helper%d(attempt int) bool { return attempt < %d }\n", i, i, i+2)
	}
	if strings.HasSuffix(args.Path, "part6.go") {
		b.WriteString("\n// DefaultBudget is how many attempts a call gets.\nconst DefaultBudget = 3\n")
	}
	return b.String()
}
