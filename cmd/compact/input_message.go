package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
)

// The command writes back what it reads: a message it does not compact
// comes out as it came in, up to key order, white space, escapes, and
// empty values (absent, null, "", [] and {} all say "nothing" to the API).
// decodeMessage keeps that promise by building each message field by field
// and refusing whatever the output could not carry.

// knownRoles are the roles a valid history may use.
var knownRoles = map[string]bool{
	compact.RoleSystem: true, openai.ChatMessageRoleDeveloper: true, compact.RoleUser: true,
	compact.RoleAssistant: true, compact.RoleTool: true,
}

// The fields the output carries, at each level of a message.
var (
	messageFields = names("role", "content", "name", "refusal", "reasoning_content",
		"function_call", "tool_calls", "tool_call_id")
	textPartFields  = names("type", "text")
	imagePartFields = names("type", "image_url")
	imageURLFields  = names("url", "detail")
	toolCallFields  = names("id", "type", "function", "index")
	functionFields  = names("name", "arguments")
)

func names(ns ...string) map[string]bool {
	m := make(map[string]bool, len(ns))
	for _, n := range ns {
		m[n] = true
	}
	return m
}

// decodeMessage checks one message and decodes it. Fields the output has
// no place for are refused, unless they carry nothing, in which case they
// are recorded in dropped. Its errors name the problem; the caller adds
// the index.
func decodeMessage(raw json.RawMessage, dropped map[string]bool) (compact.Message, error) {
	var m compact.Message
	fields, ok := objectOf(raw)
	if !ok {
		return m, fmt.Errorf("not a message object but %s", kindOf(raw))
	}
	if err := checkLossless(raw); err != nil {
		return m, err
	}
	if err := checkFields(fields, messageFields, "message fields", "", dropped); err != nil {
		return m, err
	}
	switch r, ok := fields["role"]; {
	case !ok || isNull(r):
		return m, errors.New("no role")
	case json.Unmarshal(r, &m.Role) != nil:
		return m, fmt.Errorf("role is %s; want a string", kindOf(r))
	case !knownRoles[m.Role]:
		return m, fmt.Errorf("unknown role %q (want system, developer, user, assistant or tool)", m.Role)
	}
	var err error
	if m.Content, m.MultiContent, err = decodeContent(fields["content"], dropped); err != nil {
		return m, err
	}
	for _, f := range []struct {
		name string
		to   *string
	}{{"name", &m.Name}, {"refusal", &m.Refusal}, {"reasoning_content", &m.ReasoningContent}, {"tool_call_id", &m.ToolCallID}} {
		if *f.to, err = optionalString(fields[f.name]); err != nil {
			return m, fmt.Errorf("%s is %s; want a string", f.name, kindOf(fields[f.name]))
		}
	}
	if m.Role == compact.RoleTool && strings.TrimSpace(m.ToolCallID) == "" {
		return m, errors.New("tool message has no tool_call_id")
	}
	if m.FunctionCall, err = decodeFunctionCall(fields["function_call"], dropped); err != nil {
		return m, err
	}
	if m.ToolCalls, err = decodeToolCalls(fields["tool_calls"], dropped); err != nil {
		return m, err
	}
	return m, nil
}

// decodeContent accepts null, a string, or an array of text and image
// parts.
func decodeContent(raw json.RawMessage, dropped map[string]bool) (string, []openai.ChatMessagePart, error) {
	if raw == nil || isNull(raw) {
		return "", nil, nil
	}
	switch kind := kindOf(raw); kind {
	case "a string":
		s, err := optionalString(raw)
		return s, nil, err
	case "an array":
	default:
		return "", nil, fmt.Errorf("content is %s; want a string, an array of parts or null", kind)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(raw, &raws); err != nil {
		return "", nil, err
	}
	var parts []openai.ChatMessagePart
	for k, p := range raws {
		part, err := decodePart(p, dropped)
		if err != nil {
			return "", nil, fmt.Errorf("content part %d%s", k, err)
		}
		parts = append(parts, part)
	}
	return "", parts, nil
}

// decodePart decodes one content part. Its errors start with the separator
// to put after the part's name (": " or " "), so the caller can prefix it.
func decodePart(raw json.RawMessage, dropped map[string]bool) (openai.ChatMessagePart, error) {
	var part openai.ChatMessagePart
	f, ok := objectOf(raw)
	if !ok {
		return part, fmt.Errorf(" is %s; want an object", kindOf(raw))
	}
	typ, _ := optionalString(f["type"])
	var err error
	switch typ {
	case "text":
		// A missing text is empty text: go-openai leaves an empty "text"
		// out when it writes, so our own output must read back.
		if part.Text, err = optionalString(f["text"]); err != nil {
			return part, fmt.Errorf(": text is %s; want a string", kindOf(f["text"]))
		}
		err = checkFields(f, textPartFields, "part fields", "content[].", dropped)
	case "image_url":
		img, ok := objectOf(f["image_url"])
		url, uerr := optionalString(img["url"])
		if !ok || uerr != nil || url == "" {
			return part, errors.New(": image_url has no url")
		}
		detail, derr := optionalString(img["detail"])
		if derr != nil {
			return part, fmt.Errorf(": image_url detail is %s; want a string", kindOf(img["detail"]))
		}
		part.ImageURL = &openai.ChatMessageImageURL{URL: url, Detail: openai.ImageURLDetail(detail)}
		err = checkFields(f, imagePartFields, "part fields", "content[].", dropped)
		if err == nil {
			err = checkFields(img, imageURLFields, "image_url fields", "content[].image_url.", dropped)
		}
	default:
		return part, fmt.Errorf(" has type %q; only text and image_url parts can be carried", typ)
	}
	if err != nil {
		return part, fmt.Errorf(": %w", err)
	}
	part.Type = openai.ChatMessagePartType(typ)
	return part, nil
}

// decodeFunctionCall decodes the legacy function_call: null, or a call
// with a name.
func decodeFunctionCall(raw json.RawMessage, dropped map[string]bool) (*openai.FunctionCall, error) {
	if raw == nil || isNull(raw) {
		return nil, nil
	}
	fc, err := decodeFunction(raw, "function_call.", dropped)
	if err != nil {
		return nil, fmt.Errorf("function_call%s", err)
	}
	return &fc, nil
}

// decodeToolCalls accepts null or an array of function calls, each with a
// function name.
func decodeToolCalls(raw json.RawMessage, dropped map[string]bool) ([]openai.ToolCall, error) {
	if raw == nil || isNull(raw) {
		return nil, nil
	}
	if kind := kindOf(raw); kind != "an array" {
		return nil, fmt.Errorf("tool_calls is %s; want an array", kind)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(raw, &raws); err != nil {
		return nil, err
	}
	var calls []openai.ToolCall
	for k, c := range raws {
		f, ok := objectOf(c)
		if !ok {
			return nil, fmt.Errorf("tool call %d is %s; want an object", k, kindOf(c))
		}
		var tc openai.ToolCall
		var err error
		if tc.ID, err = optionalString(f["id"]); err != nil {
			return nil, fmt.Errorf("tool call %d: id is %s; want a string", k, kindOf(f["id"]))
		}
		typ, err := optionalString(f["type"])
		if err != nil {
			return nil, fmt.Errorf("tool call %d: type is %s; want a string", k, kindOf(f["type"]))
		}
		tc.Type = openai.ToolType(typ)
		if v, ok := f["index"]; ok && !isNull(v) {
			var n int
			if kindOf(v) != "a number" || json.Unmarshal(v, &n) != nil {
				return nil, fmt.Errorf("tool call %d: index is %s; want a whole number", k, describe(v))
			}
			tc.Index = &n
		}
		if kindOf(f["function"]) != "an object" {
			return nil, fmt.Errorf("tool call %d has no function object", k)
		}
		if tc.Function, err = decodeFunction(f["function"], "tool_calls[].function.", dropped); err != nil {
			return nil, fmt.Errorf("tool call %d%s", k, err)
		}
		if err := checkFields(f, toolCallFields, "tool call fields", "tool_calls[].", dropped); err != nil {
			return nil, fmt.Errorf("tool call %d: %w", k, err)
		}
		calls = append(calls, tc)
	}
	return calls, nil
}

// decodeFunction decodes a function object: a name, and arguments that
// are a string. Its errors start with the separator to put after the
// caller's name for it.
func decodeFunction(raw json.RawMessage, prefix string, dropped map[string]bool) (openai.FunctionCall, error) {
	var fc openai.FunctionCall
	fn, ok := objectOf(raw)
	if !ok {
		return fc, fmt.Errorf(" is %s; want an object", kindOf(raw))
	}
	var err error
	for _, f := range []struct {
		name string
		to   *string
	}{{"name", &fc.Name}, {"arguments", &fc.Arguments}} {
		if *f.to, err = optionalString(fn[f.name]); err != nil {
			return fc, fmt.Errorf(": function %s is %s; want a string", f.name, kindOf(fn[f.name]))
		}
	}
	if fc.Name == "" {
		// go-openai leaves an empty name out, so the output would name
		// no function at all.
		return fc, errors.New(" has no function name")
	}
	if err := checkFields(fn, functionFields, "function fields", prefix, dropped); err != nil {
		return fc, fmt.Errorf(": %w", err)
	}
	return fc, nil
}

// checkFields checks an object's fields against the ones the output
// carries (known). A field spelled in another case is refused: read into
// go-openai's type it would stand in for the lower-case one. Any other
// field is refused when it carries something, and recorded in dropped
// (under prefix) when it carries nothing. what names the fields in errors.
func checkFields(fields map[string]json.RawMessage, known map[string]bool, what, prefix string, dropped map[string]bool) error {
	unknown := make([]string, 0, len(fields))
	for k := range fields {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown) // the same input gives the same error
	for _, k := range unknown {
		switch {
		case known[strings.ToLower(k)]:
			return fmt.Errorf("field %q: %s are lower case (%q)", k, what, strings.ToLower(k))
		case !carriesNothing(fields[k]):
			return fmt.Errorf("field %q cannot be carried into the output (go-openai's message has no place for it)", k)
		}
		dropped[prefix+k] = true
	}
	return nil
}

// carriesNothing reports whether raw is null, "", [] or {}.
func carriesNothing(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// objectOf decodes raw into its fields, when it is a JSON object.
func objectOf(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var fields map[string]json.RawMessage
	if kindOf(raw) != "an object" || json.Unmarshal(raw, &fields) != nil {
		return nil, false
	}
	return fields, true
}

// optionalString decodes a string field that may be absent or null.
func optionalString(raw json.RawMessage) (string, error) {
	var s string
	if raw == nil || isNull(raw) {
		return "", nil
	}
	if kindOf(raw) != "a string" {
		return "", fmt.Errorf("%s; want a string", kindOf(raw))
	}
	return s, json.Unmarshal(raw, &s)
}

// describe names raw's kind, and a number's value, for an error.
func describe(raw json.RawMessage) string {
	if kindOf(raw) == "a number" {
		return "the number " + strings.TrimSpace(string(raw))
	}
	return kindOf(raw)
}
