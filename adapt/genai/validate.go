package genai

import (
	"errors"
	"fmt"

	sdk "google.golang.org/genai"
)

// ErrShape is what every error of Validate wraps: the history is not one
// the Gemini API accepts.
var ErrShape = errors.New("genai: history breaks the Gemini API's shape")

// Rule names one shape rule of the Gemini API.
type Rule int

// The rules Validate checks.
const (
	// RuleNoContents: the history has no contents.
	RuleNoContents Rule = iota + 1
	// RuleNil: a nil content or part, or a nil part of a function
	// response (each encodes as null).
	RuleNil
	// RuleRole: a content's role is neither user nor model (an empty role
	// is the user's).
	RuleRole
	// RuleFirstContent: the first content is not a user content, so a
	// function call could not follow a user content.
	RuleFirstContent
	// RuleAlternation: two user or two model contents in a row.
	RuleAlternation
	// RuleEmptyContent: a content with no parts.
	RuleEmptyContent
	// RuleEmptyPart: a part with no data (no text, no inline or file data,
	// no call or response) and no thought signature.
	RuleEmptyPart
	// RulePlacement: a function call in a user content or a function
	// response in a model content.
	RulePlacement
	// RuleFunctionName: a function call or response without a name.
	RuleFunctionName
	// RuleOrphanResponse: a function response that answers no call of the
	// model content right before it (by id when it has one, else by name),
	// or answers one twice.
	RuleOrphanResponse
	// RuleUnanswered: a function call the next content does not answer:
	// the API wants as many responses as the call turn made calls. The
	// calls of the last content may still be running, so they may wait.
	RuleUnanswered
)

var ruleNames = [...]string{
	RuleNoContents:     "no contents",
	RuleNil:            "nil",
	RuleRole:           "role",
	RuleFirstContent:   "first content",
	RuleAlternation:    "alternation",
	RuleEmptyContent:   "empty content",
	RuleEmptyPart:      "empty part",
	RulePlacement:      "part placement",
	RuleFunctionName:   "function name",
	RuleOrphanResponse: "orphan function response",
	RuleUnanswered:     "unanswered function call",
}

// String returns the rule's short name.
func (r Rule) String() string {
	if r > 0 && int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("Rule(%d)", int(r))
}

// ShapeError reports one broken rule and where: Index is the content in
// History.Contents (-1 for the system instruction), Part the part in it
// (-1 for the content as a whole). It unwraps to ErrShape.
type ShapeError struct {
	Index, Part int
	Rule        Rule
	Detail      string
}

// Error returns a line such as
// `genai: content 4, part 1: function response "read_file" answers no call of the content before`.
func (e *ShapeError) Error() string {
	where := fmt.Sprintf("content %d", e.Index)
	if e.Index < 0 {
		where = "system instruction"
	}
	if e.Part >= 0 {
		where += fmt.Sprintf(", part %d", e.Part)
	}
	return "genai: " + where + ": " + e.Detail
}

// Unwrap returns ErrShape.
func (e *ShapeError) Unwrap() error { return ErrShape }

// Validate reports whether h is a history the Gemini API accepts, by the
// rules this package keeps on everything it restores: at least one
// content; no nil content or part (nor a nil part of a function
// response); only user and model contents,
// alternating, the first a user content; no content without parts and no
// part without data; function calls in model contents and function
// responses in user contents, each with a name; every function call
// answered by a response in the next content, except those of the last
// content, whose functions may still be running; every response answering
// a call of the content right before it, once. It returns nil or the first
// problem as a *ShapeError.
func Validate(h History) error {
	fail := func(i, p int, r Rule, format string, args ...any) error {
		return &ShapeError{Index: i, Part: p, Rule: r, Detail: fmt.Sprintf(format, args...)}
	}
	if h.System != nil {
		for p, part := range h.System.Parts {
			switch {
			case part == nil:
				return fail(-1, p, RuleNil, "the part is nil")
			case nilResponsePart(part) != nil:
				return fail(-1, p, RuleNil, "%v", nilResponsePart(part))
			case !hasData(part):
				return fail(-1, p, RuleEmptyPart, "the part has no data")
			}
		}
	}
	if len(h.Contents) == 0 {
		return fail(-1, -1, RuleNoContents, "the history has no contents")
	}
	var open calls // the calls of the content before
	for i, c := range h.Contents {
		if c == nil {
			return fail(i, -1, RuleNil, "the content is nil")
		}
		role := userRole(c.Role)
		switch {
		case role != sdk.RoleUser && role != sdk.RoleModel:
			return fail(i, -1, RuleRole, "role %q is not user or model", c.Role)
		case i == 0 && role != sdk.RoleUser:
			return fail(i, -1, RuleFirstContent, "the first content is the model's, not the user's")
		case i > 0 && userRole(h.Contents[i-1].Role) == role:
			return fail(i, -1, RuleAlternation, "two %s contents in a row", role)
		case len(c.Parts) == 0:
			return fail(i, -1, RuleEmptyContent, "the %s content has no parts", role)
		}
		user := role == sdk.RoleUser
		var made calls
		for p, part := range c.Parts {
			switch {
			case part == nil:
				return fail(i, p, RuleNil, "the part is nil")
			case nilResponsePart(part) != nil:
				return fail(i, p, RuleNil, "%v", nilResponsePart(part))
			case !hasData(part):
				return fail(i, p, RuleEmptyPart, "the part has no data")
			case part.FunctionCall != nil:
				fc := part.FunctionCall
				switch {
				case user:
					return fail(i, p, RulePlacement, "function call %q in a user content", fc.Name)
				case fc.Name == "":
					return fail(i, p, RuleFunctionName, "function call %q has no name", fc.ID)
				}
				made = append(made, call{name: fc.Name, id: fc.ID, view: "open"})
			case part.FunctionResponse != nil:
				fr := part.FunctionResponse
				switch {
				case !user:
					return fail(i, p, RulePlacement, "function response %q in a model content", fr.Name)
				case fr.Name == "":
					return fail(i, p, RuleFunctionName, "function response %q has no name", fr.ID)
				case open.answer(fr.ID, fr.Name) == "":
					return fail(i, p, RuleOrphanResponse, "function response %s answers no open call of the content before",
						describe(fr.Name, fr.ID))
				}
			}
		}
		for _, fc := range open {
			if !fc.answered {
				return fail(i, -1, RuleUnanswered, "function call %s of the content before is not answered here",
					describe(fc.name, fc.id))
			}
		}
		open = made
	}
	return nil
}

// describe names a function call or response: its name, and its id when
// it has one.
func describe(name, id string) string {
	if id == "" {
		return fmt.Sprintf("%q", name)
	}
	return fmt.Sprintf("%q (id %q)", name, id)
}

// hasData reports whether p carries something the API reads: data of some
// kind, or a thought signature (the API sends signature-only parts itself
// and wants them back).
func hasData(p *sdk.Part) bool {
	return p.Text != "" || len(p.ThoughtSignature) > 0 || !isText(p)
}
