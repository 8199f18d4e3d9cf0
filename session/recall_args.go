package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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
		return fmt.Sprintf("the arguments are not valid JSON (at byte %d: %s)", syntax.Offset, clipText(err.Error()))
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Sprintf("%s must be %s, not a JSON %s", clip(typ.Field), jsonKind(typ.Type.Kind().String()), clipText(typ.Value))
	case errors.As(err, &typ):
		return fmt.Sprintf("the arguments must be a JSON object, not a JSON %s", clipText(typ.Value))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the arguments are not valid JSON: they end too early"
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		if u, err := strconv.Unquote(f); err == nil {
			f = u
		}
		return "unknown field " + clip(f) + "; see the tool's parameters"
	}
	return "the arguments could not be read: " + clipText(strings.TrimPrefix(msg, "json: "))
}

// clipBytes is how much of a bad value an error answer quotes: enough to
// recognise it, never the whole of a value that is wrong because it is
// long.
const clipBytes = 48

// clip quotes the start of v, at most clipBytes of it, saying how long it
// was when it cut.
func clip(v string) string {
	if len(v) <= clipBytes {
		return strconv.Quote(v)
	}
	return fmt.Sprintf("%s (%d bytes)", strconv.Quote(v[:cutRune(v, clipBytes)]+ellipsis), len(v))
}

// clipText is clip for a text that is not a value: the start, unquoted.
func clipText(v string) string {
	if len(v) <= 2*clipBytes {
		return v
	}
	return v[:cutRune(v, 2*clipBytes)] + ellipsis
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
	bad := func() error {
		return badArgs("cursor %s is not one this tool gave; copy it from the answer's next", clip(string(b)))
	}
	seq, off, hasOff := strings.Cut(strings.TrimSpace(s), ":")
	n, err := strconv.ParseInt(seq, 10, 64)
	if err != nil || n < 0 || n > maxSeq {
		return bad()
	}
	c.set, c.seq = true, n
	if hasOff {
		o, err := strconv.ParseInt(off, 10, 64)
		if err != nil || o < 0 || o > maxSeq {
			return bad()
		}
		c.offset = int(min(o, int64(math.MaxInt)))
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
