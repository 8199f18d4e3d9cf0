// Package english spells the counts in the library's own text, the text a
// person or a model reads: "1 message", "2 messages", "3 summaries".
package english

import "strings"

// Noun returns noun, a singular English noun or noun phrase, as it reads
// after the number n: as it is for 1, its last word in the plural
// otherwise ("tool result" becomes "tool results", "summary" "summaries",
// "match" "matches"). It knows the regular plurals only, which is every
// noun the library counts.
func Noun(n int, noun string) string {
	if n == 1 || noun == "" {
		return noun
	}
	switch last := noun[len(noun)-1]; {
	case last == 'y' && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	case last == 's' || last == 'x' || last == 'z' || strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}
