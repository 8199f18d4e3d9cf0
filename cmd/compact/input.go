package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/contextkit/compact"
	openai "github.com/sashabaranov/go-openai"
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

// knownRoles are the roles a valid history may use.
var knownRoles = map[string]bool{
	compact.RoleSystem: true, openai.ChatMessageRoleDeveloper: true, compact.RoleUser: true,
	compact.RoleAssistant: true, compact.RoleTool: true,
}

// stringFields are the message fields that must be strings (or null).
var stringFields = []string{"name", "refusal", "reasoning_content", "tool_call_id"}

// messageFields are the fields the output carries; others are dropped.
var messageFields = map[string]bool{
	"role": true, "content": true, "name": true, "refusal": true, "reasoning_content": true,
	"function_call": true, "tool_calls": true, "tool_call_id": true,
}

// decodeMessage checks one message's shape, records the fields it has that
// the output will not carry, and decodes it. Its errors name the problem;
// the caller adds the index.
func decodeMessage(raw json.RawMessage, dropped map[string]bool) (compact.Message, error) {
	var m compact.Message
	var fields map[string]json.RawMessage
	if kind := kindOf(raw); kind != "an object" {
		return m, fmt.Errorf("not a message object but %s", kind)
	}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return m, err
	}
	var role string
	switch r, ok := fields["role"]; {
	case !ok || isNull(r):
		return m, errors.New("no role")
	case json.Unmarshal(r, &role) != nil:
		return m, fmt.Errorf("role is %s; want a string", kindOf(r))
	case !knownRoles[role]:
		return m, fmt.Errorf("unknown role %q (want system, developer, user, assistant or tool)", role)
	}
	if err := checkContent(fields["content"], dropped); err != nil {
		return m, err
	}
	for _, f := range stringFields {
		if v, ok := fields[f]; ok && !isNull(v) && kindOf(v) != "a string" {
			return m, fmt.Errorf("%s is %s; want a string", f, kindOf(v))
		}
	}
	if role == compact.RoleTool {
		var id string
		_ = json.Unmarshal(fields["tool_call_id"], &id)
		if strings.TrimSpace(id) == "" {
			return m, errors.New("tool message has no tool_call_id")
		}
	}
	if err := checkToolCalls(fields["tool_calls"]); err != nil {
		return m, err
	}
	for k := range fields {
		switch {
		case messageFields[k]:
		case messageFields[strings.ToLower(k)]:
			// encoding/json matches field names in any case: "ROLE" would
			// silently override "role".
			return m, fmt.Errorf("field %q: message fields are lower case (%q)", k, strings.ToLower(k))
		default:
			dropped[k] = true
		}
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, err
	}
	return m, nil
}

// checkContent accepts null, a string, or an array of text and image parts.
func checkContent(raw json.RawMessage, dropped map[string]bool) error {
	if raw == nil || isNull(raw) {
		return nil
	}
	switch kind := kindOf(raw); kind {
	case "a string":
		return nil
	case "an array":
	default:
		return fmt.Errorf("content is %s; want a string, an array of parts or null", kind)
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return err
	}
	for k, p := range parts {
		var f map[string]json.RawMessage
		if kindOf(p) != "an object" || json.Unmarshal(p, &f) != nil {
			return fmt.Errorf("content part %d is %s; want an object", k, kindOf(p))
		}
		var typ string
		_ = json.Unmarshal(f["type"], &typ)
		switch typ {
		case "text":
			// A missing text is empty text: go-openai leaves an empty
			// "text" out when it writes, so our own output must read back.
			if v, ok := f["text"]; ok && kindOf(v) != "a string" {
				return fmt.Errorf("content part %d: text is %s; want a string", k, kindOf(f["text"]))
			}
		case "image_url":
			var img map[string]json.RawMessage
			if kindOf(f["image_url"]) != "an object" || json.Unmarshal(f["image_url"], &img) != nil ||
				kindOf(img["url"]) != "a string" {
				return fmt.Errorf("content part %d: image_url has no url", k)
			}
		default:
			return fmt.Errorf("content part %d has type %q; only text and image_url parts can be carried", k, typ)
		}
		for name := range f {
			if name != "type" && name != "text" && name != "image_url" {
				dropped["content[]."+name] = true
			}
		}
	}
	return nil
}

// checkToolCalls accepts null or an array of function calls whose
// arguments are a string.
func checkToolCalls(raw json.RawMessage) error {
	if raw == nil || isNull(raw) {
		return nil
	}
	if kind := kindOf(raw); kind != "an array" {
		return fmt.Errorf("tool_calls is %s; want an array", kind)
	}
	var calls []json.RawMessage
	if err := json.Unmarshal(raw, &calls); err != nil {
		return err
	}
	for k, c := range calls {
		var f map[string]json.RawMessage
		if kindOf(c) != "an object" || json.Unmarshal(c, &f) != nil {
			return fmt.Errorf("tool call %d is %s; want an object", k, kindOf(c))
		}
		if v, ok := f["id"]; ok && !isNull(v) && kindOf(v) != "a string" {
			return fmt.Errorf("tool call %d: id is %s; want a string", k, kindOf(v))
		}
		var fn map[string]json.RawMessage
		if kindOf(f["function"]) != "an object" || json.Unmarshal(f["function"], &fn) != nil {
			return fmt.Errorf("tool call %d has no function object", k)
		}
		for _, name := range []string{"name", "arguments"} {
			if v, ok := fn[name]; ok && !isNull(v) && kindOf(v) != "a string" {
				return fmt.Errorf("tool call %d: function %s is %s; want a string", k, name, kindOf(v))
			}
		}
	}
	return nil
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
