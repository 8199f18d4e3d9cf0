package tokens

import (
	"encoding/json"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// The costs of tool definitions in a chat request beyond the text they
// carry. OpenAI renders each function as a line "name:description" and one
// "key:type:description" line per parameter inside framing it does not
// publish; these constants are that framing as OpenAI's cookbook measured it
// against the API ("How to count tokens with tiktoken", section on tools:
// 101 prompt tokens for gpt-4o and 105 for gpt-4 on its example, which our
// tests reproduce).
const (
	toolInitO200K  = 7  // each function, o200k_base models (gpt-4o and later)
	toolInitCL100K = 10 // each function, cl100k_base models (gpt-4, gpt-3.5)
	toolPropInit   = 3  // once per function that has parameters
	toolPropKey    = 3  // each parameter
	toolEnumInit   = -3 // each parameter with an enum
	toolEnumItem   = 3  // each enum value
	toolsEnd       = 12 // once per request that has tools
)

// CountTools returns the tokens the tool definitions add to a request, as tc
// counts text; 0 for none. The function's framing follows the counter's
// encoding when it says one (cl100k_base costs more per function).
func CountTools(tc Counter, tools []openai.Tool) int {
	if len(tools) == 0 {
		return 0
	}
	init := toolInitO200K
	if e, ok := tc.(NamedEncoding); ok && e.Encoding() == EncodingCL100KBase {
		init = toolInitCL100K
	}
	n := toolsEnd
	for _, t := range tools {
		if t.Function == nil {
			continue
		}
		f := t.Function
		n += init + tc.CountText(f.Name+":"+strings.TrimSuffix(f.Description, "."))
		props := toolProperties(f.Parameters)
		if len(props) > 0 {
			n += toolPropInit
		}
		for _, p := range props {
			n += toolPropKey + tc.CountText(p.name+":"+p.Type+":"+strings.TrimSuffix(p.Description, "."))
			if len(p.Enum) > 0 {
				n += toolEnumInit
				for _, v := range p.Enum {
					n += toolEnumItem + tc.CountText(v)
				}
			}
		}
	}
	return n
}

// toolProperty is one parameter of a function's JSON schema, as far as
// counting needs it.
type toolProperty struct {
	name        string
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Enum        []string `json:"enum"`
}

// toolProperties reads the top-level properties of a function's parameter
// schema, in the order the schema lists them. The schema may be any value
// that encodes to JSON (go-openai accepts json.RawMessage, maps, structs);
// one that does not, or has no properties, gives none.
func toolProperties(params any) []toolProperty {
	if params == nil {
		return nil
	}
	raw, ok := params.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(params)
		if err != nil {
			return nil
		}
		raw = b
	}
	var schema struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &schema) != nil || len(schema.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(schema.Properties)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var out []toolProperty
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return out
		}
		var p toolProperty
		if err := dec.Decode(&p); err != nil {
			return out
		}
		p.name, _ = key.(string)
		out = append(out, p)
	}
	return out
}
