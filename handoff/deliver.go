package handoff

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/contextkit/compact/internal/msg"
)

// Deliver builds the packet of in and writes it under p.Root and p.Dir as
// name (see [FileName]). The packet is bounded by p's MaxBytes, MaxMessages
// and MessageBytes, which replace in's own. In [FreshSession] mode it also
// builds the continuation of history, whose system prompt loses note (see
// [Continuation]), and hands a copy of the report to p.Start when set. The
// report names in.SessionID.
//
// Any error leaves no packet behind: a packet written before a later step
// failed is removed, and a failure to remove it is joined to the error.
func Deliver(ctx context.Context, p Policy, in Input, history []Message, note, name string) (*Report, error) {
	in.MaxBytes, in.MaxMessages, in.MessageBytes = p.MaxBytes, p.MaxMessages, p.MessageBytes
	packet := Build(in)
	r := &Report{Mode: p.Mode, Packet: packet, SessionID: in.SessionID}
	if p.Mode == FreshSession {
		cont, err := Continuation(history, note, packet)
		if err != nil {
			return nil, err
		}
		r.Continuation = cont
	}
	path, err := Write(p.Root, p.Dir, name, []byte(packet))
	if err != nil {
		return nil, errors.Join(err, remove(path))
	}
	r.Path = path
	if p.Mode == FreshSession && p.Start != nil {
		given := *r
		given.Continuation = msg.Clone(r.Continuation)
		id, err := p.Start(ctx, given)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("handoff: starting the continuation: %w", err), remove(path))
		}
		r.ContinuationID = id
	}
	return r, nil
}

// remove removes a packet a failed handoff wrote ("" for none).
func remove(path string) error {
	if path == "" {
		return nil
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("handoff: removing the abandoned packet: %w", err)
	}
	return nil
}
