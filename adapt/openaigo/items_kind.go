package openaigo

import (
	"strings"

	"github.com/contextkit/compact"
)

// This file sorts items into the roles they play in a conversation, which
// decides the message each becomes part of.

// kind is the part an item plays.
type kind int

const (
	// kindInstruction: a system or developer message, or an item that acts
	// as one (additional tools, a configuration update). A message of its
	// own.
	kindInstruction kind = iota
	// kindUser: a user message. A message of its own.
	kindUser
	// kindModel: what the model wrote: an assistant message, a reasoning
	// item, a call, a hosted tool's call. A run of them is one assistant
	// message.
	kindModel
	// kindOutput: the output of a call, written by the host. A tool
	// message of its own.
	kindOutput
	// kindCompaction: a provider's compaction item. A summary message of
	// its own.
	kindCompaction
	// kindGlue: an item that stands for no message (an item reference, a
	// compaction trigger). It travels with the message before it.
	kindGlue
)

// Item types, as the API names them.
const (
	typeMessage              = "message"
	typeReasoning            = "reasoning"
	typeFunctionCall         = "function_call"
	typeFunctionCallOutput   = "function_call_output"
	typeCustomToolCall       = "custom_tool_call"
	typeCustomToolCallOutput = "custom_tool_call_output"
	typeComputerCall         = "computer_call"
	typeComputerCallOutput   = "computer_call_output"
	typeLocalShellCall       = "local_shell_call"
	typeLocalShellCallOutput = "local_shell_call_output"
	typeShellCall            = "shell_call"
	typeShellCallOutput      = "shell_call_output"
	typeApplyPatchCall       = "apply_patch_call"
	typeApplyPatchCallOutput = "apply_patch_call_output"
	typeToolSearchCall       = "tool_search_call"
	typeToolSearchOutput     = "tool_search_output"
	typeProgram              = "program"
	typeProgramOutput        = "program_output"
	typeMcpApprovalRequest   = "mcp_approval_request"
	typeMcpApprovalResponse  = "mcp_approval_response"
	typeCompaction           = "compaction"
	typeCompactionTrigger    = "compaction_trigger"
	typeItemReference        = "item_reference"
	typeAdditionalTools      = "additional_tools"
	typeConfigurationUpdate  = "configuration_update"
)

// answers maps each output type to the call type it answers. The first six
// calls always wait for their output (the API refuses a request in which
// one is not answered); the last three are answered only in some
// conversations (a tool search or a program the server ran, an approval
// never given), so they pair only where their output is there.
var answers = map[string]string{
	typeFunctionCallOutput:   typeFunctionCall,
	typeCustomToolCallOutput: typeCustomToolCall,
	typeComputerCallOutput:   typeComputerCall,
	typeLocalShellCallOutput: typeLocalShellCall,
	typeShellCallOutput:      typeShellCall,
	typeApplyPatchCallOutput: typeApplyPatchCall,
	typeToolSearchOutput:     typeToolSearchCall,
	typeProgramOutput:        typeProgram,
	typeMcpApprovalResponse:  typeMcpApprovalRequest,
}

// optionalCall reports whether calls of type t wait for an output only
// when one is there.
func optionalCall(t string) bool {
	return t == typeToolSearchCall || t == typeProgram || t == typeMcpApprovalRequest
}

// callID is the id a call item is answered by: its call_id, or its id for
// an MCP approval request.
func callID(w wire) string {
	if w.Type == typeMcpApprovalRequest {
		return w.ID
	}
	return w.CallID
}

// outputID is the id of the call an output item answers.
func outputID(w wire) string {
	switch w.Type {
	case typeLocalShellCallOutput:
		return w.ID
	case typeMcpApprovalResponse:
		return w.ApprovalRequestID
	}
	return w.CallID
}

// isCallType reports whether t names a call that an output answers.
func isCallType(t string) bool {
	for _, c := range answers {
		if c == t {
			return true
		}
	}
	return false
}

// sorted is the items' wires with their kinds, and which calls and outputs
// pair: calls[i] is true for a call item that waits for an output, and
// outputs[i] for an output item that answers a call.
type sorted struct {
	kinds   []kind
	calls   []bool
	outputs []bool
}

// sortItems decides each item's kind. An optional call pairs with a later
// output of its type and id; that output pairs only with such a call. An
// optional output that pairs with nothing is what the model saw the server
// do (a tool search's tools, a program's result), except an approval
// response, which travels with the message before it.
func sortItems(ws []wire) sorted {
	s := sorted{kinds: make([]kind, len(ws)), calls: make([]bool, len(ws)), outputs: make([]bool, len(ws))}
	later := map[string]bool{} // type + id of every output, seen from the end
	for i := len(ws) - 1; i >= 0; i-- {
		w := ws[i]
		if call, ok := answers[w.Type]; ok {
			later[call+"\x00"+outputID(w)] = true
		}
		if isCallType(w.Type) {
			s.calls[i] = !optionalCall(w.Type) || later[w.Type+"\x00"+callID(w)]
		}
	}
	made := map[string]bool{} // type + id of every call that waits, seen from the start
	for i, w := range ws {
		if s.calls[i] {
			made[w.Type+"\x00"+callID(w)] = true
		}
		call, isOutput := answers[w.Type]
		s.outputs[i] = isOutput && (!optionalCall(call) || made[call+"\x00"+outputID(w)])
		s.kinds[i] = itemKind(w, s.outputs[i], isOutput)
	}
	return s
}

// itemKind is the kind of w. paired reports whether w is an output that
// answers a call; output whether its type is an output type at all.
func itemKind(w wire, paired, output bool) kind {
	switch {
	case paired:
		return kindOutput
	case w.Type == typeMcpApprovalResponse, w.Type == typeItemReference, w.Type == typeCompactionTrigger:
		return kindGlue
	case output:
		return kindModel // a server-run tool search or program: its result
	case w.Type == typeCompaction:
		return kindCompaction
	case w.Type == typeAdditionalTools, w.Type == typeConfigurationUpdate:
		return kindInstruction
	case w.Type == typeMessage || w.Type == "" && w.Role != "":
		switch w.Role {
		case compact.RoleSystem, roleDeveloper:
			return kindInstruction
		case compact.RoleAssistant:
			return kindModel
		}
		return kindUser // a user message, or one with a role the API refuses
	case w.Type == "":
		return kindGlue // nothing the API would read: it travels along
	case strings.HasSuffix(w.Type, "_output") && w.CallID != "":
		return kindOutput // an output type this package does not know
	}
	return kindModel
}
