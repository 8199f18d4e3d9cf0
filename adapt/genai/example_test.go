package genai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/contextkit/compact"
	adapt "github.com/contextkit/compact/adapt/genai"
)

// history is an agent conversation: a system instruction, a question, three
// rounds of two parallel function calls without ids (Gemini pairs their
// responses by name; one call fails each time), and a follow-up.
func history() adapt.History {
	h := adapt.History{
		System:   genai.NewContentFromText("You are a coding agent.", genai.RoleUser),
		Contents: []*genai.Content{genai.NewContentFromText("Where is the retry budget set?", genai.RoleUser)},
	}
	long := strings.Repeat("// retry helpers: wait, back off, give up after the budget.\n", 40)
	for i := 1; i <= 3; i++ {
		read := genai.NewPartFromFunctionCall("read_file", map[string]any{"path": fmt.Sprintf("retry%d.go", i)})
		read.ThoughtSignature = []byte("sig") // as Gemini 3 signs a turn's first call
		h.Contents = append(h.Contents,
			genai.NewContentFromParts([]*genai.Part{{Text: "Read two more files.", Thought: true}, read,
				genai.NewPartFromFunctionCall("stat", map[string]any{"path": fmt.Sprintf("budget%d.go", i)})}, genai.RoleModel),
			genai.NewContentFromParts([]*genai.Part{
				genai.NewPartFromFunctionResponse("read_file", map[string]any{"output": long}),
				genai.NewPartFromFunctionResponse("stat", map[string]any{"error": "no such file"})}, genai.RoleUser))
	}
	h.Contents = append(h.Contents,
		genai.NewContentFromText("Helpers only so far; the budget files are missing.", genai.RoleModel),
		genai.NewContentFromText("Then check config/defaults.go.", genai.RoleUser))
	return h
}

// describe prints each content of h as its role and its parts' kinds.
func describe(h adapt.History) {
	for _, c := range h.Contents {
		var kinds []string
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				kinds = append(kinds, "call")
			case p.FunctionResponse != nil:
				kinds = append(kinds, "response")
			case p.Thought:
				kinds = append(kinds, "thought")
			default:
				kinds = append(kinds, "text")
			}
		}
		fmt.Printf("  %-5s %s\n", c.Role, strings.Join(kinds, " "))
	}
}

func ExampleCompress() {
	h := history()
	engine := compact.New(compact.WithContextWindow(2000))
	out, res, err := adapt.Compress(context.Background(), engine, h, compact.Force())
	if err != nil {
		fmt.Println("carry on with the history as it is:", err)
		return
	}
	fmt.Printf("%d contents -> %d:\n", len(h.Contents), len(out.Contents))
	describe(out)
	fmt.Println("summarised converted messages", res.SummarizedFrom, "to", res.SummarizedTo)
	fmt.Println("system parts:", len(out.System.Parts), "(the instruction, then the compaction note)")
	fmt.Println("latest content kept as is:", out.Contents[len(out.Contents)-1] == h.Contents[len(h.Contents)-1])
	fmt.Println("valid request:", adapt.Validate(out) == nil)
	// Output:
	// 9 contents -> 5:
	//   user  text
	//   model thought call call
	//   user  response response
	//   model text
	//   user  text
	// summarised converted messages 1 to 7
	// system parts: 2 (the instruction, then the compaction note)
	// latest content kept as is: true
	// valid request: true
}

func ExampleConvert() {
	conv, err := adapt.Convert(history())
	if err != nil {
		panic(err)
	}
	for _, m := range conv.Messages[:6] {
		var ids []string
		for _, c := range m.ToolCalls {
			ids = append(ids, c.ID)
		}
		fmt.Printf("%-9s calls=%v answers=%q\n", m.Role, ids, m.ToolCallID)
	}
	// Output:
	// system    calls=[] answers=""
	// user      calls=[] answers=""
	// assistant calls=[fc_1_1 fc_1_2] answers=""
	// tool      calls=[] answers="fc_1_1"
	// tool      calls=[] answers="fc_1_2"
	// assistant calls=[fc_3_1 fc_3_2] answers=""
}

func ExampleConversion_Restore() {
	h := history()
	conv, err := adapt.Convert(h)
	if err != nil {
		panic(err)
	}
	// An engine that rewrites the first failed response and keeps the rest.
	msgs := compact.Clone(conv.Messages)
	msgs[4].Content = "[pruned]"
	out, err := conv.Restore(msgs)
	if err != nil {
		panic(err)
	}
	fr := out.Contents[2].Parts[1].FunctionResponse
	fmt.Println(fr.Name, fr.Response)
	fmt.Println("other part unchanged:", out.Contents[2].Parts[0] == h.Contents[2].Parts[0])
	fmt.Println("other contents unchanged:", out.Contents[1] == h.Contents[1])
	// Output:
	// stat map[error:[pruned]]
	// other part unchanged: true
	// other contents unchanged: true
}

func ExampleFromMessages() {
	h, err := adapt.FromMessages([]compact.Message{
		{Role: compact.RoleSystem, Content: "Be brief."},
		{Role: compact.RoleUser, Content: "Hi."},
		{Role: compact.RoleUser, Content: "Are you there?"},
	})
	if err != nil {
		panic(err)
	}
	body, _ := json.Marshal(map[string]any{"systemInstruction": h.System, "contents": h.Contents})
	fmt.Println(string(body))
	// Output:
	// {"contents":[{"parts":[{"text":"Hi."},{"text":"Are you there?"}],"role":"user"}],"systemInstruction":{"parts":[{"text":"Be brief."}]}}
}

func ExampleValidate() {
	h := history()
	h.Contents = h.Contents[:2] // the calls of the last content may still run
	fmt.Println(adapt.Validate(h))
	h.Contents = append(h.Contents, genai.NewContentFromText("What did you find?", genai.RoleUser))
	fmt.Println(adapt.Validate(h))
	// Output:
	// <nil>
	// genai: content 2: function call "read_file" of the content before is not answered here
}

func ExampleShouldCompress() {
	for _, window := range []int{200_000, 1_000} {
		engine := compact.New(compact.WithContextWindow(window))
		ok, err := adapt.ShouldCompress(engine, history())
		fmt.Println(window, ok, err)
	}
	// Output:
	// 200000 false <nil>
	// 1000 true <nil>
}

func ExampleUsageFrom() {
	var resp genai.GenerateContentResponse // as Models.GenerateContent returns it
	resp.UsageMetadata = &genai.GenerateContentResponseUsageMetadata{
		PromptTokenCount: 31200, CachedContentTokenCount: 30000, CandidatesTokenCount: 400, ThoughtsTokenCount: 250}
	u := adapt.UsageFrom(resp.UsageMetadata)
	fmt.Println(u.PromptTokens, u.CachedTokens, u.CompletionTokens)
	// Output:
	// 31200 30000 650
}
