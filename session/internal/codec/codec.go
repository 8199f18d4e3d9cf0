// Package codec turns messages into the bytes a durable store keeps, and
// back, for the stores of package session.
//
// A message is kept as go-openai's JSON for it, which is what it means to a
// provider: every field a request carries round-trips, and an empty slice
// may come back nil.
package codec

import (
	"encoding/json"
	"fmt"

	"github.com/contextkit/compact"
)

// Message encodes m, message i of a call, naming i when it cannot (a
// message with both Content and MultiContent set, which go-openai refuses
// to send).
func Message(i int, m compact.Message) ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("message %d: %w", i, err)
	}
	return b, nil
}

// Messages encodes msgs as one JSON array.
func Messages(msgs []compact.Message) ([]byte, error) {
	if msgs == nil {
		msgs = []compact.Message{}
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		for i, m := range msgs {
			if _, err := Message(i, m); err != nil {
				return nil, err
			}
		}
	}
	return b, err
}

// DecodeMessage decodes what Message encoded.
func DecodeMessage(b []byte) (compact.Message, error) {
	var m compact.Message
	if err := json.Unmarshal(b, &m); err != nil {
		return compact.Message{}, err
	}
	return m, nil
}

// DecodeMessages decodes what Messages encoded; an empty array decodes to
// nil.
func DecodeMessages(b []byte) ([]compact.Message, error) {
	var msgs []compact.Message
	if err := json.Unmarshal(b, &msgs); err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	return msgs, nil
}
