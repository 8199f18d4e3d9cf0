// Package genai connects compact to Google's Gen AI Go SDK
// (google.golang.org/genai), the types of Gemini and of Google's Agent
// Development Kit: it converts a Gemini history to compact's messages,
// compacts it through any compact.ContextEngine, and converts the result
// back.
//
// A History is what a GenerateContent request carries: the system
// instruction and the contents. Most hosts need one call before each
// request:
//
//	h, res, err := genai.Compress(ctx, engine, h)
//
// In a Google ADK agent (google.golang.org/adk), three lines in a
// before-model callback compact every request the agent makes; ADK hands
// the callback a request whose Config is never nil:
//
//	func compactRequest(ctx agent.CallbackContext, req *model.LLMRequest) (*model.LLMResponse, error) {
//		h := genai.History{System: req.Config.SystemInstruction, Contents: req.Contents}
//		if out, _, err := genai.Compress(ctx, engine, h); err == nil {
//			req.Config.SystemInstruction, req.Contents = out.System, out.Contents
//		}
//		return nil, nil // go on to the model
//	}
//
// and llmagent.Config{..., BeforeModelCallbacks: []llmagent.BeforeModelCallback{compactRequest}}.
//
// # What the engine sees
//
// Convert turns each content into the OpenAI-style messages compact works
// on: a model content is one assistant message (text as content, thoughts
// as reasoning, function calls as tool calls); a user content is one tool
// message for each function response, then one user message holding its
// other parts; the system instruction is a system message. Gemini pairs a
// function response with a call of the content before it by id, or by name
// when the model sent no id; compact pairs by id, so a call without one
// gets a made-up id (fc_3_1: content 3, part 1) that its response shares,
// and that never reaches the API. Inline images are images; other inline
// data, file data, code execution and server-side tool parts reach the
// engine as a short text that says what they are ("[file: report.pdf,
// application/pdf, gs://bucket/report.pdf]"), so they are counted and
// summarised like any other content.
//
// # What comes back
//
// Nothing that only the SDK sees (thought signatures, video metadata, media
// resolution, part metadata, the ids the engine does not see) is put in the
// messages. A Conversion keeps the history it was made from, and Restore
// lines the engine's output up with the converted input the way diff does:
// every content the engine kept unchanged comes back as the same
// *genai.Content, and every part as the same *genai.Part; a function
// response the engine shortened keeps its id, name and part fields (found
// by its id, or by its place when an agent used the id before); a call
// whose arguments it shortened keeps its thought signature and the rest of
// its content; a system instruction the engine extended keeps its parts and
// gets the addition as one more part; a message the engine wrote (a
// summary) becomes plain text parts, and a summary merged in front of a
// user message (see compact.WithUserFirst) a text part before that
// content's own parts. Parts inside the range the engine
// summarised are gone from the output like any summarised message, and
// their text is in the summary.
//
// Every output keeps the Gemini API's shape (see Validate): contents
// alternate, the first is a user content, and the responses to a model
// content's calls are all in the user content right after it. Where
// compaction puts two user or two model contents side by side they are
// merged into one; contents that were already side by side in the input
// stay as they were.
package genai
