// Command slashcommand handles "/compress" typed into a chat, the way an
// agent's REPL or chat front end does:
//
//	go run ./examples/slashcommand
//
// "/compress" alone compacts the whole history; "/compress here 2" keeps
// the last two exchanges verbatim and summarises everything before them;
// any other text after the command is a focus topic the summary weights.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/compacttest"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// chat is one conversation in a chat front end.
type chat struct {
	engine compact.ContextEngine
	msgs   []compact.Message
}

// handle answers one line the user typed. A /compress line compacts the
// history and returns what it did; anything else would go to the model.
func (c *chat) handle(ctx context.Context, line string) (string, error) {
	args, ok := strings.CutPrefix(strings.TrimSpace(line), "/compress")
	if !ok || args != "" && args[0] != ' ' {
		c.msgs = append(c.msgs, compact.Message{Role: compact.RoleUser, Content: line})
		return "(sent to the model)", nil
	}
	cmd := compact.ParseCompressArgs(args)
	var opts []compact.CompressOption
	if cmd.Focus != "" {
		opts = append(opts, compact.WithFocus(cmd.Focus))
	}
	var res *compact.Result
	var err error
	if cmd.Partial {
		res, err = compact.CompressHere(ctx, c.engine, c.msgs, cmd.Keep, opts...)
	} else {
		// A compaction the user asked for runs even under the threshold.
		res, err = c.engine.Compress(ctx, c.msgs, append(opts, compact.Force())...)
	}
	if err != nil {
		// The history is untouched; tell the user why nothing happened.
		return "", err
	}
	c.msgs = res.Messages
	return fmt.Sprintf("compacted %d messages into %d (%d -> %d tokens), summarised messages %d-%d",
		res.MessagesBefore, res.MessagesAfter, res.TokensBefore, res.TokensAfter, res.SummarizedFrom, res.SummarizedTo), nil
}

func run(ctx context.Context, w io.Writer) error {
	for _, line := range []string{"/compress here 2", "/compress here 1 shard ranges", "/compress"} {
		// A fresh coding session for each command, to compare them, on a
		// 16k-token window: on a large one, a full compaction of this short
		// session finds everything inside the protected tail.
		c := &chat{engine: compact.New(compact.WithContextWindow(16_000)), msgs: compacttest.Histories()[0].Messages}
		reply, err := c.handle(ctx, line)
		if errors.Is(err, compact.ErrNothingToCompress) {
			reply, err = "nothing to compress yet: every message is protected", nil
		}
		if err != nil {
			return err
		}
		_, _ = fmt.Fprintf(w, "%-32s %s\n", line, reply)
	}
	return nil
}
