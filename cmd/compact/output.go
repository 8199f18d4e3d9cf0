package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
)

// wireMessage is a message as the command writes it: go-openai's fields
// and rules (content is a string or a list of parts, never both; empty
// fields left out), encoded without HTML escaping so code in transcripts
// stays readable ("a && b", not "a \u0026\u0026 b").
type wireMessage struct {
	Role             string               `json:"role"`
	Content          any                  `json:"content,omitempty"`
	Refusal          string               `json:"refusal,omitempty"`
	Name             string               `json:"name,omitempty"`
	ReasoningContent string               `json:"reasoning_content,omitempty"`
	FunctionCall     *openai.FunctionCall `json:"function_call,omitempty"`
	ToolCalls        []openai.ToolCall    `json:"tool_calls,omitempty"`
	ToolCallID       string               `json:"tool_call_id,omitempty"`
}

// encodeMessages returns msgs as an indented JSON array, ending in a
// newline.
func encodeMessages(msgs []compact.Message) ([]byte, error) {
	wire := make([]wireMessage, len(msgs))
	for i, m := range msgs {
		if m.Content != "" && len(m.MultiContent) > 0 {
			return nil, fmt.Errorf("message %d sets both content fields", i)
		}
		w := wireMessage{
			Role: m.Role, Refusal: m.Refusal, Name: m.Name, ReasoningContent: m.ReasoningContent,
			FunctionCall: m.FunctionCall, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID,
		}
		switch {
		case len(m.MultiContent) > 0:
			w.Content = m.MultiContent
		case m.Content != "":
			w.Content = m.Content
		}
		wire[i] = w
	}
	return encodeJSON(wire)
}

// encodeJSON indents v by two spaces without HTML escaping.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// pendingFile is a file written under a temporary name beside its
// destination, waiting to be renamed into place.
type pendingFile struct {
	tmp, dst string
}

// stage writes data to a temporary file in dst's directory. Nothing at dst
// changes until commit.
func stage(dst string, data []byte) (*pendingFile, error) {
	dir := filepath.Dir(dst)
	f, err := os.CreateTemp(dir, "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary name means nothing to the user
		}
		return nil, fmt.Errorf("writing %s: %w", dst, err)
	}
	p := &pendingFile{tmp: f.Name(), dst: dst}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(p.tmp, fileMode(dst))
	}
	if err != nil {
		p.discard()
		return nil, fmt.Errorf("writing %s: %w", dst, err)
	}
	return p, nil
}

// fileMode keeps an existing destination's permissions; a new file gets
// 0644 (CreateTemp's 0600 would hide a result from the user's tools).
func fileMode(dst string) fs.FileMode {
	if fi, err := os.Stat(dst); err == nil && fi.Mode().IsRegular() {
		return fi.Mode().Perm()
	}
	return 0o644
}

func (p *pendingFile) commit() error {
	if err := os.Rename(p.tmp, p.dst); err != nil {
		p.discard()
		return fmt.Errorf("writing %s: %w", p.dst, err)
	}
	return nil
}

func (p *pendingFile) discard() { _ = os.Remove(p.tmp) }

// writeFiles writes every file or none: each is staged first, and only
// when all are staged are they renamed into place. A rename failing after
// another succeeded (a disk vanishing between two renames in one
// directory) is the one case it cannot undo.
func writeFiles(files map[string][]byte) error {
	var staged []*pendingFile
	for dst, data := range files {
		if fi, err := os.Stat(dst); err == nil && fi.IsDir() {
			for _, s := range staged {
				s.discard()
			}
			return fmt.Errorf("writing %s: it is a directory", dst)
		}
		p, err := stage(dst, data)
		if err != nil {
			for _, s := range staged {
				s.discard()
			}
			return err
		}
		staged = append(staged, p)
	}
	var errs []error
	for _, p := range staged {
		if err := p.commit(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
