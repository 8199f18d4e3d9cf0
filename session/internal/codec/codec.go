// Package codec turns messages into the bytes a durable store keeps, and
// back, for the stores of package session.
//
// A message is kept as go-openai's JSON for it, which is what it means to a
// provider: every field a request carries round-trips, and an empty slice
// may come back nil. Nothing else is lost: a message holding text that is
// not valid UTF-8, which JSON cannot carry, is kept with its strings
// escaped (see bytes.go) and comes back byte for byte, NUL bytes included.
// What is kept is always valid UTF-8 without a raw NUL, so a text column of
// any database holds it.
package codec

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/contextkit/compact"
)

// Message encodes m, message i of a call, naming i when it cannot (a
// message with both Content and MultiContent set, which go-openai refuses
// to send).
func Message(i int, m compact.Message) ([]byte, error) {
	var (
		b   []byte
		err error
	)
	if allValid(m) {
		b, err = json.Marshal(m)
	} else {
		b, err = escaped(m)
	}
	if err != nil {
		return nil, fmt.Errorf("message %d: %w", i, err)
	}
	return b, nil
}

// Messages encodes msgs as one JSON array, each element as Message does.
func Messages(msgs []compact.Message) ([]byte, error) {
	out := []byte{'['}
	for i, m := range msgs {
		b, err := Message(i, m)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	return append(out, ']'), nil
}

// DecodeMessage decodes what Message encoded.
func DecodeMessage(b []byte) (compact.Message, error) {
	var m compact.Message
	if err := json.Unmarshal(b, &m); err != nil {
		return compact.Message{}, err
	}
	if err := unescapeMessage(b, &m); err != nil {
		return compact.Message{}, err
	}
	return m, nil
}

// DecodeMessages decodes what Messages encoded; an empty array decodes to
// nil.
func DecodeMessages(b []byte) ([]compact.Message, error) {
	var msgs []compact.Message
	if !bytes.Contains(b, []byte(encodingKey)) {
		if err := json.Unmarshal(b, &msgs); err != nil {
			return nil, err
		}
	} else {
		var raw []json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			return nil, err
		}
		msgs = make([]compact.Message, len(raw))
		for i, r := range raw {
			m, err := DecodeMessage(r)
			if err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
			msgs[i] = m
		}
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	return msgs, nil
}
