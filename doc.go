// Package compact keeps a long LLM agent conversation inside its model's
// context window.
package compact
