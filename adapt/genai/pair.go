package genai

import (
	"strconv"

	sdk "google.golang.org/genai"
)

// This file pairs function responses with the calls they answer, the way
// the Gemini API pairs them: a response answers a call of the model content
// right before it, by id when the response has one, else by name, each
// call once, in order.

// call is one function call of a model content while its responses are
// read.
type call struct {
	name, id string // as the model sent them; id may be ""
	view     string // the id compact sees: id, or one made up
	answered bool
}

// calls are the function calls of one model content.
type calls []call

// answer marks the call a response with id and name answers and returns
// its view id; "" when it answers none of them.
func (cs calls) answer(id, name string) string {
	for k := range cs {
		c := &cs[k]
		if c.answered || (id != "" && c.id != id) || (id == "" && c.name != name) {
			continue
		}
		c.answered = true
		return c.view
	}
	return ""
}

// callIDs makes up ids for the calls and responses the model and the host
// sent without one: compact pairs a tool result with its call by id. A
// made-up id names the content and the part ("fc_3_1"), so it is the same
// for the same history, and is never an id the history uses itself.
type callIDs struct {
	taken map[string]bool
}

// newCallIDs notes every id the history's calls and responses use.
func newCallIDs(contents []*sdk.Content) *callIDs {
	x := &callIDs{taken: map[string]bool{}}
	for _, c := range contents {
		if c == nil {
			continue
		}
		for _, p := range c.Parts {
			switch {
			case p == nil:
			case p.FunctionCall != nil:
				x.taken[p.FunctionCall.ID] = true
			case p.FunctionResponse != nil:
				x.taken[p.FunctionResponse.ID] = true
			}
		}
	}
	return x
}

// forCall is the view id of the call at part i of content k.
func (x *callIDs) forCall(id string, k, i int) string {
	if id != "" {
		return id
	}
	return x.made(k, i)
}

// forResponse is the view id of the response at part i of content k,
// given the view id of the call it answers ("" for none): that id, else
// the response's own, else a made-up one (the response is an orphan either
// way, which compact reports).
func (x *callIDs) forResponse(answers, id string, k, i int) string {
	switch {
	case answers != "":
		return answers
	case id != "":
		return id
	}
	return x.made(k, i)
}

// made is a made-up id for part i of content k that the history does not
// use.
func (x *callIDs) made(k, i int) string {
	id := "fc_" + strconv.Itoa(k) + "_" + strconv.Itoa(i)
	for x.taken[id] {
		id += "_"
	}
	x.taken[id] = true
	return id
}
