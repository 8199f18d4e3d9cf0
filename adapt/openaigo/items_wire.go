package openaigo

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
)

// Item is an input item of the Responses API: a message, a call, a call's
// output, a reasoning item, a compaction item, and the rest of what
// responses.ResponseInputItemUnionParam holds.
type Item = responses.ResponseInputItemUnionParam

// This file reads an item as the API reads it: from its JSON. The SDK keeps
// an item in one of 33 typed variants, or as raw JSON (an item built with
// param.Override, or one ToParam made from a response), so the JSON is the
// one form every item has. wire holds the fields of every item type this
// package looks at.
type wire struct {
	Type              string          `json:"type"`
	Role              string          `json:"role"`
	ID                string          `json:"id"`
	CallID            string          `json:"call_id"`
	Name              string          `json:"name"`
	Arguments         json.RawMessage `json:"arguments"`
	Input             string          `json:"input"`
	Content           json.RawMessage `json:"content"`
	Output            json.RawMessage `json:"output"`
	Summary           []wirePart      `json:"summary"`
	EncryptedContent  string          `json:"encrypted_content"`
	Action            json.RawMessage `json:"action"`
	Actions           json.RawMessage `json:"actions"`
	Operation         json.RawMessage `json:"operation"`
	Result            json.RawMessage `json:"result"`
	Code              string          `json:"code"`
	ApprovalRequestID string          `json:"approval_request_id"`
	Approve           *bool           `json:"approve"`
	Reason            string          `json:"reason"`
	ServerLabel       string          `json:"server_label"`
	Tools             json.RawMessage `json:"tools"`
	Queries           []string        `json:"queries"`
	Status            string          `json:"status"`
	Execution         string          `json:"execution"`
}

// wirePart is a content part, a reasoning summary part or an output part:
// the fields of each this package reads.
type wirePart struct {
	Type       string          `json:"type"`
	Text       string          `json:"text"`
	Refusal    string          `json:"refusal"`
	ImageURL   string          `json:"image_url"`
	FileID     string          `json:"file_id"`
	FileData   string          `json:"file_data"`
	FileURL    string          `json:"file_url"`
	Filename   string          `json:"filename"`
	Detail     string          `json:"detail"`
	InputAudio json.RawMessage `json:"input_audio"`
	Stdout     string          `json:"stdout"`
	Stderr     string          `json:"stderr"`
}

// readWire encodes u as the SDK sends it and reads it back as a wire. A
// field of an unexpected JSON type is left empty: the rest is still read.
func readWire(u Item) (wire, []byte, error) {
	data, err := encodeItem(u)
	if err != nil {
		return wire{}, nil, err
	}
	var w wire
	if err := jsonUnmarshalLoose(data, &w); err != nil {
		return wire{}, data, err
	}
	return w, data, nil
}

// encodeItem is u as the SDK sends it. It calls the SDK's encoder itself:
// json.Marshal would check and compact what that encoder wrote, a second
// pass over every byte (encrypted content is long).
func encodeItem(u Item) ([]byte, error) {
	return u.MarshalJSON()
}

func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// jsonUnmarshalLoose reads raw into v as far as it goes: a field of an
// unexpected type is left as it was.
func jsonUnmarshalLoose(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil && !isTypeError(err) {
		return err
	}
	return nil
}

// jsonString reads raw as a JSON string; ok is false when it is not one.
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// jsonParts reads raw as a list of parts; ok is false when it is not a list.
func jsonParts(raw json.RawMessage) ([]wirePart, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	var ps []wirePart
	if jsonUnmarshalLoose(raw, &ps) != nil {
		return nil, false
	}
	return ps, true
}

// rawParts reads raw as a list of parts, each kept as it is.
func rawParts(raw json.RawMessage) ([]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	var ps []json.RawMessage
	if json.Unmarshal(raw, &ps) != nil {
		return nil, false
	}
	return ps, true
}

// compactJSON is raw without insignificant spaces, or "" for nothing or
// null.
func compactJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// DecodeItems reads a JSON array of input items (a request's "input", or a
// history a host stored) into the SDK's items, each as faithfully as the
// SDK allows: an item the SDK's types hold exactly (it encodes back to the
// same JSON) comes back typed, with its variant set; any other (an item
// with fields the SDK's decoder drops, a message with no "type", an item
// type this SDK version does not know) comes back as its raw JSON, which
// the SDK sends unchanged. Either way, encoding the result gives the same
// JSON as data.
//
// It exists because the SDK's own decoder is not the inverse of its
// encoder: it fails on the messages its helpers build (they have no
// "type"), and drops fields (an output message's id and status).
func DecodeItems(data []byte) ([]Item, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, err
	}
	out := make([]Item, 0, len(raws))
	for _, raw := range raws {
		out = append(out, decodeItem(raw))
	}
	return out, nil
}

// ItemsFromOutput returns the items a response's output adds to the next
// request's input, in a loop that sends the whole history each time (with
// store false, or to keep a history of its own): every output item as an
// input item, each as DecodeItems reads it, so that reasoning keeps its
// encrypted content and a compaction item its own.
func ItemsFromOutput(output []responses.ResponseOutputItemUnion) []Item {
	out := make([]Item, 0, len(output))
	for _, o := range output {
		raw := []byte(o.RawJSON())
		if len(raw) == 0 {
			raw, _ = json.Marshal(o)
		}
		out = append(out, decodeItem(raw))
	}
	return out
}

// decodeItem is raw as a typed item when the SDK holds it exactly, else as
// raw JSON.
func decodeItem(raw json.RawMessage) Item {
	var u Item
	if json.Unmarshal(raw, &u) == nil {
		if back, err := encodeItem(u); err == nil && sameJSON(back, raw) {
			return u
		}
	}
	return param.Override[Item](append(json.RawMessage(nil), raw...))
}

// sameJSON reports whether a and b hold the same JSON value (object keys in
// any order).
func sameJSON(a, b []byte) bool {
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&x) != nil || db.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// patchItem returns u with the JSON fields in set replaced (a nil value
// removes the field): typed when the SDK holds the result exactly, else as
// raw JSON. Everything else of u, including fields the SDK does not know,
// stays as it was.
func patchItem(u Item, set map[string]any) (Item, error) {
	data, err := encodeItem(u)
	if err != nil {
		return Item{}, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return Item{}, err
	}
	for k, v := range set {
		if v == nil {
			delete(obj, k)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return Item{}, err
		}
		obj[k] = b
	}
	patched, err := json.Marshal(obj)
	if err != nil {
		return Item{}, err
	}
	return decodeItem(patched), nil
}

// copyItem returns u with its variant struct copied, so that a host
// changing a restored item's fields does not change the original.
func copyItem(u Item) Item {
	v := reflect.ValueOf(&u).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer && f.CanSet() && !f.IsNil() {
			c := reflect.New(f.Elem().Type())
			c.Elem().Set(f.Elem())
			f.Set(c)
			break
		}
	}
	return u
}
