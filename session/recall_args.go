package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxArguments bounds the arguments of one recall call: more than any
// valid call needs (a query is at most maxQuery bytes, a seq list
// maxExpandSeqs numbers), so a runaway model cannot make a tool parse
// megabytes.
const maxArguments = 16 << 10

// decodeArgs reads a tool call's arguments into v, strictly: one JSON
// object with no field v lacks and nothing after it. Empty arguments read
// as {}, since models send nothing for a call without parameters.
func decodeArgs(args []byte, v any) error {
	if len(args) > maxArguments {
		return badArgs("the arguments are %d bytes; at most %d are read", len(args), maxArguments)
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var bad *argError
		if errors.As(err, &bad) {
			return bad // a field's own check (see cursor)
		}
		return badArgs("%s", describeJSONError(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badArgs("the arguments must be one JSON object, with nothing after it")
	}
	return nil
}

// describeJSONError turns a decoding error into a sentence a model can act
// on.
func describeJSONError(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("the arguments are not valid JSON (at byte %d: %v)", syntax.Offset, err)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Sprintf("%q must be %s, not a JSON %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)
	case errors.As(err, &typ):
		return fmt.Sprintf("the arguments must be a JSON object, not a JSON %s", typ.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the arguments are not valid JSON: they end too early"
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return "unknown field " + f + "; see the tool's parameters"
	}
	return "the arguments could not be read: " + strings.TrimPrefix(msg, "json: ")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "int", "int64":
		return "an integer"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	case "slice":
		return "an array"
	}
	return "a " + goKind
}

// cursor is where a paged answer goes on: a sequence number, and for
// context_expand a byte offset in that message's text. It reads from a
// JSON string ("57", "57:4096") or number, since models send either.
type cursor struct {
	set    bool
	seq    int64
	offset int
}

func (c *cursor) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if u, err := strconv.Unquote(s); err == nil {
		s = u
	}
	seq, off, hasOff := strings.Cut(strings.TrimSpace(s), ":")
	n, err := strconv.ParseInt(seq, 10, 64)
	if err != nil || n < 0 {
		return badArgs("cursor %s is not one this tool gave; copy it from the answer's next", b)
	}
	c.set, c.seq = true, n
	if hasOff {
		o, err := strconv.Atoi(off)
		if err != nil || o < 0 {
			return badArgs("cursor %s is not one this tool gave; copy it from the answer's next", b)
		}
		c.offset = o
	}
	return nil
}

func (c cursor) MarshalJSON() ([]byte, error) {
	s := strconv.FormatInt(c.seq, 10)
	if c.offset > 0 {
		s += ":" + strconv.Itoa(c.offset)
	}
	return json.Marshal(s)
}
