// Command chain is a langchaingo conversation chain whose memory is a
// compact session kept in a SQLite file: the chain's history is compacted
// before it outgrows the window, survives a restart, and what a summary
// folded can be read back with the recall tools. The model is a local
// server speaking OpenAI's Chat Completions that the program starts
// itself, so it runs offline:
//
//	go run ./examples/chain
//
// The same code runs against a real model: drop the base URL and the
// scripted server, and give the client a key.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/contextkit/compact"
	adapt "github.com/contextkit/compact/adapt/langchaingo"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/sqlitestore"
)

func main() {
	dir, err := os.MkdirTemp("", "chain")
	if err != nil {
		log.Fatal(err)
	}
	err = errors.Join(run(context.Background(), os.Stdout, filepath.Join(dir, "chat.db")), os.RemoveAll(dir))
	if err != nil {
		log.Fatal(err)
	}
}

// vaultPath is the detail the first question gives and the summaries fold.
const vaultPath = "secret/deploy-7731"

// sessionID names the conversation; it survives restarts and compactions.
const sessionID = "support-chat-17"

// questions are the user's turns before the restart.
var questions = []string{
	"Our staging deploys fail since Monday. The deploy key is in vault path " + vaultPath + ".",
	"The error says: permission denied (publickey). Which key does CI use?",
	"We rotated keys last Friday. Could that be it?",
	"Where does the runner read its SSH config from?",
	"The runner image is ci-runner:2024.11. Does that matter?",
	"Walk me through re-adding the key to the runner.",
	"Done. Staging deploys again. What should we monitor now?",
	"And for production, anything different?",
}

// run plays the conversation through a chain, restarts it on the same
// SQLite file, and asks one more question, then recalls the vault path
// the summaries folded.
func run(ctx context.Context, w io.Writer, path string) error {
	srv := newModelServer()
	defer srv.Close()
	llm, err := openai.New(openai.WithToken("local"), openai.WithBaseURL(srv.URL), openai.WithModel(modelName))
	if err != nil {
		return err
	}

	for _, phase := range []struct {
		name      string
		questions []string
	}{
		{"first process", questions},
		{"after a restart", []string{"Remind me: what was the problem and what did we change?"}},
	} {
		st, err := sqlitestore.Open(ctx, path)
		if err != nil {
			return err
		}
		// A 1,500-token window makes this short chat compact; use the
		// model's real window.
		s, err := session.Open(ctx, sessionID, compact.New(compact.WithContextWindow(1500)),
			session.WithStore(st), session.WithRecall(true))
		if err != nil {
			return closeAll(ctx, err, nil, st)
		}
		chain := chains.NewConversation(llm, adapt.NewMemory(s))
		for _, q := range phase.questions {
			if _, err := chains.Run(ctx, chain, q); err != nil {
				return closeAll(ctx, err, s, st)
			}
		}
		_, _ = fmt.Fprintf(w, "%s: %d turns asked, %d compactions, %d messages live (%d tokens)\n",
			phase.name, len(phase.questions), s.Status().Compactions, s.Len(), s.Tokens())
		if phase.name == "after a restart" {
			if err := recall(ctx, w, s); err != nil {
				return closeAll(ctx, err, s, st)
			}
		}
		if err := closeAll(ctx, nil, s, st); err != nil {
			return err
		}
	}
	return nil
}

// recall finds the vault path in the session's log with context_search,
// as an agent holding the recall tools would: the log keeps every message
// verbatim, whatever the summaries kept of it.
func recall(ctx context.Context, w io.Writer, s *session.Session) error {
	for _, tool := range adapt.RecallTools(s) {
		if tool.Name() != session.ToolSearch {
			continue
		}
		answer, err := tool.Call(ctx, vaultPath)
		if err != nil {
			return err
		}
		_, _ = fmt.Fprintf(w, "recalled with %s: %s\n", tool.Name(), answer)
	}
	return nil
}

// closeAll closes the session and the store, returning err or the first
// close error.
func closeAll(ctx context.Context, err error, s *session.Session, st *sqlitestore.Store) error {
	if s != nil {
		if cerr := s.Close(ctx); err == nil {
			err = cerr
		}
	}
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}
