package codec

import (
	"encoding/json"

	"github.com/contextkit/compact/models"
)

// Spend encodes what a session had been billed as a compaction records it:
// "" for the zero Spend, which a compaction committed before stores kept
// it also reads as.
func Spend(s models.Spend) (string, error) {
	if s.Requests == 0 && s.SummarizerCalls == 0 && len(s.Compactions) == 0 && s.Billed == (models.Tokens{}) && s.Summarizer == (models.Tokens{}) {
		return "", nil
	}
	b, err := json.Marshal(s)
	return string(b), err
}

// DecodeSpend decodes what Spend encoded.
func DecodeSpend(text string) (models.Spend, error) {
	var s models.Spend
	if text == "" {
		return s, nil
	}
	err := json.Unmarshal([]byte(text), &s)
	return s, err
}
