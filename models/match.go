package models

import "strings"

// normalize reduces a model name to the form the table's spellings take:
// lower case, without a provider path, a fine-tune prefix or a Bedrock
// region and vendor.
func normalize(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = strings.TrimSpace(n[i+1:])
	}
	n = strings.TrimPrefix(n, "ft:")
	if label, rest, ok := strings.Cut(n, "."); ok && isBedrockRegion(label) {
		n = rest
	}
	if label, rest, ok := strings.Cut(n, "."); ok && isBedrockVendor(label) {
		n = rest
	}
	return n
}

// isBedrockRegion reports whether label is the region of an Amazon Bedrock
// cross-region inference profile, as in "us.anthropic.claude-...".
func isBedrockRegion(label string) bool {
	switch label {
	case "us", "us-gov", "eu", "apac", "global", "jp", "au", "ca":
		return true
	}
	return false
}

// isBedrockVendor reports whether label is the vendor part of an Amazon
// Bedrock model id for a family in the table, as in
// "anthropic.claude-3-5-sonnet-20240620-v1:0" or
// "meta.llama3-1-70b-instruct-v1:0".
func isBedrockVendor(label string) bool {
	switch label {
	case "anthropic", "meta", "qwen", "openai":
		return true
	}
	return false
}

// matches reports whether the normalized name n belongs to the family
// spelled s: n is s, or s followed by ":" or "@" (a tag or a version), or
// by "-" and anything but a one- or two-digit number ending the name or
// followed by "-", ".", ":" or "@" (that would be a newer minor version).
func matches(n, s string) bool {
	rest, ok := strings.CutPrefix(n, s)
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	switch rest[0] {
	case ':', '@':
		return true
	case '-':
		return !isMinorVersion(rest[1:])
	}
	return false
}

// isMinorVersion reports whether s starts with a number of one or two
// digits that ends s or is followed by "-", ".", ":" or "@". Snapshot dates
// and numbers ("20250514", "2024-08-06", "0613", "001") are longer; sizes
// ("8b", "32k") are followed by a letter.
func isMinorVersion(s string) bool {
	d := 0
	for d < len(s) && '0' <= s[d] && s[d] <= '9' {
		d++
	}
	if d == 0 || d > 2 {
		return false
	}
	if d == len(s) {
		return true
	}
	return strings.IndexByte("-.:@", s[d]) >= 0
}
