package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/contextkit/compact"
)

// The input formats the command reads.
const (
	formatArray   = "array"   // a JSON array of messages
	formatJSONL   = "jsonl"   // one message a line
	formatRequest = "request" // an object with a "messages" array
)

// transcript is a decoded input.
type transcript struct {
	msgs   []compact.Message
	format string
	// model is the model a logged request names, "" otherwise.
	model string
	// dropped lists the fields the input carries that the output cannot
	// (go-openai's message has no place for them), sorted.
	dropped []string
}

// inputError is input the command cannot read, with where it is wrong.
type inputError struct {
	index int // message index; -1 when the input as a whole is at fault
	line  int // line of a JSONL input, 0 otherwise
	msg   string
}

func (e *inputError) Error() string {
	switch {
	case e.index < 0 && e.line > 0:
		return fmt.Sprintf("line %d: %s", e.line, e.msg)
	case e.index < 0:
		return e.msg
	case e.line > 0:
		return fmt.Sprintf("message %d (line %d): %s", e.index, e.line, e.msg)
	default:
		return fmt.Sprintf("message %d: %s", e.index, e.msg)
	}
}

// readTranscript reads and decodes r.
func readTranscript(r io.Reader) (*transcript, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return decodeTranscript(data)
}

// decodeTranscript decodes the three input formats, checking every message
// on the way; the first problem is returned as an *inputError.
func decodeTranscript(data []byte) (*transcript, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a byte order mark
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		return nil, &inputError{index: -1, msg: "input is empty"}
	case trimmed[0] == '[':
		return decodeArray(data)
	case trimmed[0] == '{':
		return decodeObject(data)
	}
	if json.Valid(trimmed) {
		return nil, &inputError{index: -1, msg: fmt.Sprintf("not an array of messages but %s", kindOf(trimmed))}
	}
	return nil, notJSON(data, json.Unmarshal(trimmed, new(any)), -1)
}

// decodeArray decodes a JSON array of messages.
func decodeArray(data []byte) (*transcript, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, notJSON(data, err, -1)
	}
	t := &transcript{format: formatArray}
	dropped := map[string]bool{}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			// The decoder's offsets count from the value it was reading;
			// decoding the whole input again gives one from the start.
			if whole := json.Unmarshal(data, new(any)); whole != nil {
				err = whole
			}
			return nil, notJSON(data, err, i)
		}
		m, err := decodeMessage(raw, dropped)
		if err != nil {
			return nil, &inputError{index: i, msg: err.Error()}
		}
		t.msgs = append(t.msgs, m)
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return nil, notJSON(data, err, -1)
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		return nil, &inputError{index: -1, msg: "unexpected data after the array of messages"}
	}
	t.dropped = sortedKeys(dropped)
	return t, nil
}

// decodeObject decodes an input that starts with an object: a logged
// request, a single message, or JSONL.
func decodeObject(data []byte) (*transcript, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var first json.RawMessage
	if err := dec.Decode(&first); err != nil {
		if isSyntax(err) && bytes.Count(bytes.TrimSpace(data), []byte("\n")) > 0 {
			return decodeJSONL(data) // names the line at fault
		}
		return nil, notJSON(data, err, -1)
	}
	if len(bytes.TrimSpace(data[dec.InputOffset():])) > 0 {
		return decodeJSONL(data)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(first, &fields); err != nil {
		return nil, notJSON(data, err, -1)
	}
	if raw, ok := fields["messages"]; ok {
		if kind := kindOf(raw); kind != "an array" {
			return nil, &inputError{index: -1, msg: fmt.Sprintf(`"messages" is %s; want an array of messages`, kind)}
		}
		t, err := decodeArray(raw)
		if err != nil {
			return nil, err
		}
		// The messages are checked; what is around them must not hide a
		// second "messages" either.
		if err := checkLossless(first); err != nil {
			return nil, &inputError{index: -1, msg: err.Error()}
		}
		t.format = formatRequest
		_ = json.Unmarshal(fields["model"], &t.model)
		return t, nil
	}
	if _, ok := fields["role"]; ok {
		return decodeJSONL(data) // a single message: JSONL of one line
	}
	return nil, &inputError{index: -1, msg: `an object with neither a "messages" array nor a "role": not a transcript`}
}

// decodeJSONL decodes one message a line; blank lines are skipped.
func decodeJSONL(data []byte) (*transcript, error) {
	t := &transcript{format: formatJSONL}
	dropped := map[string]bool{}
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		i := len(t.msgs)
		if !json.Valid(line) {
			err := json.Unmarshal(line, new(any))
			return nil, &inputError{index: i, line: n + 1, msg: "not JSON: " + err.Error()}
		}
		m, err := decodeMessage(line, dropped)
		if err != nil {
			return nil, &inputError{index: i, line: n + 1, msg: err.Error()}
		}
		t.msgs = append(t.msgs, m)
	}
	t.dropped = sortedKeys(dropped)
	return t, nil
}

// kindOf names the JSON type of raw, with its article.
func kindOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "missing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func isSyntax(err error) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF)
}

// notJSON describes a decoding error with its line and column in data, for
// the message at index (or the input as a whole when index < 0).
func notJSON(data []byte, err error, index int) error {
	msg := "not JSON: " + err.Error()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := position(data, se.Offset)
		msg = fmt.Sprintf("not JSON: %v (line %d, column %d)", se, line, col)
	} else if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		msg = "not JSON: the input ends in the middle of a value"
	}
	return &inputError{index: index, msg: msg}
}

// position returns the 1-based line and column of the byte a syntax error
// with offset off is about: the error came after reading off bytes, so the
// byte at fault is the last of them.
func position(data []byte, off int64) (line, col int) {
	at := min(max(off-1, 0), int64(len(data)))
	before := data[:at]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = int(at) - bytes.LastIndexByte(before, '\n')
	return line, col
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
