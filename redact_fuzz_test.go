package compact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// secretMaker builds a secret of one shape from fuzz bytes. It returns the
// whole secret and the part of it that must not survive redaction.
type secretMaker func(seed []byte) (secret, core string)

// fill spells n characters of alphabet from seed, starting with lead (which
// makes the body look random the way real keys do: mixed case and digits).
func fill(seed []byte, alphabet, lead string, n int) string {
	var b strings.Builder
	b.WriteString(lead)
	for i := 0; b.Len() < n; i++ {
		v := byte(i * 31)
		if len(seed) > 0 {
			v += seed[i%len(seed)]
		}
		b.WriteByte(alphabet[int(v)%len(alphabet)])
	}
	return b.String()[:n]
}

const (
	fuzzAlnum  = alnumChars
	fuzzB64url = alnumChars + "_-"
	fuzzHex    = "0123456789abcdef"
)

func prefixed(prefix, alphabet, lead string, n int) secretMaker {
	return func(seed []byte) (string, string) {
		body := fill(seed, alphabet, lead, n)
		return prefix + body, body
	}
}

var secretMakers = []secretMaker{
	prefixed("sk-proj-", fuzzB64url, "Aa1", 48),
	prefixed("sk-ant-api03-", fuzzB64url, "Aa1", 80),
	prefixed("sk-", fuzzAlnum, "Aa1", 48),
	prefixed("ghp_", fuzzAlnum, "", 36),
	prefixed("github_pat_", fuzzAlnum+"_", "", 82),
	prefixed("AKIA", upperChars+digitChars, "", 16),
	prefixed("xoxb-", fuzzAlnum+"-", "1", 40),
	prefixed("hf_", fuzzAlnum, "", 34),
	prefixed("AIza", fuzzB64url, "", 35),
	prefixed("sk_live_", fuzzAlnum, "", 24),
	prefixed("glpat-", fuzzB64url, "", 20),
	prefixed("npm_", fuzzAlnum, "", 36),
	prefixed("SK", fuzzHex, "a1", 32),
	func(seed []byte) (string, string) {
		body := fill(seed, fuzzB64url, "", 22) + "." + fill(seed, fuzzB64url, "x", 43)
		return "SG." + body, body
	},
	func(seed []byte) (string, string) {
		sig := fill(seed, fuzzB64url, "", 43)
		jwt := "eyJhbGciOiJIUzI1NiJ9." + "eyJ" + fill(seed, fuzzB64url, "", 30) + "." + sig
		return jwt, sig
	},
	func(seed []byte) (string, string) {
		body := fill(seed, alnumChars+"+/", "MII", 64)
		return "-----BEGIN RSA PRIVATE KEY-----\n" + body + "\n-----END RSA PRIVATE KEY-----", body
	},
	func(seed []byte) (string, string) {
		pw := fill(seed, fuzzAlnum+"!%^*_-", "P", 16)
		return "https://deploy:" + pw + "@example.com/repo.git", pw
	},
	func(seed []byte) (string, string) {
		tok := fill(seed, fuzzAlnum+"._-", "t0", 24)
		return "Authorization: Bearer " + tok, tok
	},
	func(seed []byte) (string, string) {
		pw := fill(seed, fuzzAlnum+"!@#%^*", "p", 16)
		return "DB_PASSWORD=" + pw, pw
	},
	func(seed []byte) (string, string) {
		pw := fill(seed, fuzzAlnum, "q", 16)
		return `{"client_secret": "` + pw + `"}`, pw
	},
}

// FuzzRedact: Redact never panics, is idempotent, returns valid UTF-8 with no
// control characters, and no generated secret survives when embedded (on its
// own line) in arbitrary text.
func FuzzRedact(f *testing.F) {
	for i, c := range secretCases {
		f.Add(c.in, "", uint8(i), []byte(c.name))
	}
	for _, c := range lookAlikes {
		f.Add(c.in[:min(len(c.in), 200)], "tail", uint8(0), []byte{1, 2, 3})
	}
	f.Add("password=\x1b[", "\xff", uint8(3), []byte{0})
	f.Fuzz(func(t *testing.T, before, after string, kind uint8, seed []byte) {
		for _, s := range []string{before, after, before + after} {
			once := Redact(s)
			if twice := Redact(once); twice != once {
				t.Fatalf("not idempotent:\n in    %q\n once  %q\n twice %q", s, once, twice)
			}
			if !utf8.ValidString(once) || StripControl(once) != once {
				t.Fatalf("Redact(%q) = %q: invalid UTF-8 or control characters", s, once)
			}
		}
		secret, core := secretMakers[int(kind)%len(secretMakers)](seed)
		in := before + "\n" + secret + "\n" + after
		out := Redact(in)
		if strings.Count(out, core) > strings.Count(before, core)+strings.Count(after, core) {
			t.Fatalf("secret %q survived in %q", core, out)
		}
	})
}

// FuzzStripControl: the result is valid UTF-8 free of control characters
// other than tab and newline, StripControl is idempotent, and clean text is
// returned unchanged.
func FuzzStripControl(f *testing.F) {
	for _, s := range []string{"", "plain", "a\r\nb\rc", "\x1b[1;31mred\x1b[0m", "\x1b]0;title\x07x", "bad \xff utf8", "\u202eevil", "tab\tnl\n", "\u009b31mx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := StripControl(s)
		if !utf8.ValidString(out) {
			t.Fatalf("StripControl(%q) = %q: invalid UTF-8", s, out)
		}
		for _, r := range out {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || isControlRune(r) {
				t.Fatalf("StripControl(%q) = %q keeps control %U", s, out, r)
			}
		}
		if again := StripControl(out); again != out {
			t.Fatalf("not idempotent: %q then %q", out, again)
		}
		if cleanText(s) && out != s {
			t.Fatalf("clean text changed: %q → %q", s, out)
		}
	})
}

// redactBenchText is the visible text of every transcript available, chained
// the way a long session's tool output reads.
func redactBenchText(b *testing.B) string {
	var sb strings.Builder
	all := allTranscripts(b)
	for _, name := range sortedNames(all) {
		for _, m := range all[name] {
			sb.WriteString(Text(m))
			sb.WriteString(ToolCallText(m))
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// BenchmarkRedact measures throughput over real transcript text (about 1.3 MB
// when ../shared/transcripts is present) and over the same text salted with a
// secret every few kilobytes.
func BenchmarkRedact(b *testing.B) {
	text := redactBenchText(b)
	var salted strings.Builder
	for i := 0; i < len(text); i += 4096 {
		salted.WriteString(text[i:min(len(text), i+4096)])
		c := secretCases[(i/4096)%len(secretCases)]
		salted.WriteString("\n" + c.in + "\n")
	}
	for _, bc := range []struct{ name, text string }{{"transcripts", text}, {"salted", salted.String()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Redact(bc.text)
			}
		})
	}
}
