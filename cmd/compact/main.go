// Command compact compacts an agent transcript offline, with the settings an
// agent runs in production, so its owner can see what a compaction keeps.
//
//	go run ./cmd/compact testdata/transcripts/coding_session.json -report
//	go run ./cmd/compact -window 8000 -force -o out.json -json-report rep.json transcript.json
//	go run ./cmd/compact -o compacted/ transcripts/
//	go run ./cmd/compact -probe ../shared/transcripts
//	go run ./cmd/compact -force -window 8000 -o out.json -html view.html transcript.json
//	go run ./cmd/compact replay -join -summary-tokens 1500 -price claude-sonnet-4-5,gpt-5 \
//		-compare "default;-threshold 0.3;drop-oldest" ../shared/transcripts
//
// Input is a JSON array of OpenAI chat messages, JSONL (one message a
// line), or a logged request (an object with a "messages" array); "-" reads
// standard input. The compacted history is written as a JSON array, to
// standard output or atomically to -o: on any error nothing is written.
// Bad input exits 1 with one line naming the message and the problem.
// -report and -json-report say what became of each input message and
// whether the result fits the usable window; -html writes the same as one
// self-contained page (docs/html-view.png shows one). Run with -h for
// every flag, the exit status and examples.
//
// "compact replay" replays transcripts as the agent sent them, one request
// before each assistant message, under a model's prices and a prompt
// cache, and prints what each setting costs side by side: requests,
// tokens, cache reads and writes, compactions, summarizer spend, dollars,
// and the facts still present or recoverable at the end. Run
// "compact replay -h" for the cache rule and its flags.
//
// "compact -probe" compacts each transcript at an 8,000- and a 16,000-token
// window (or -window) and counts which facts a successor needs survive: the
// latest ask, paths, modified files, identifiers, error lines and the last
// command; for each fact lost it checks that the session's context_search
// finds it verbatim. -summarizer takes a list (extractive,drop: drop is a
// baseline that keeps nothing).
//
// "compact store expire|delete|redact" runs a session store's lifecycle
// against its SQLite file or Postgres DSN: deleting the folded records and
// idle sessions past an age, deleting sessions, redacting folded records.
// It refuses, before writing anything, a STORE that holds no session store.
//
// The repository's docs/cli.md describes every mode and flag, the JSON
// report's fields and the input the command refuses; docs/benchmarks.md
// has the probe's and the replay's figures on real transcripts.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// signalContext is cancelled by an interrupt, so a summarizer call in
// flight stops and nothing half-done is written.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}
