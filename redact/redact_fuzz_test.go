package redact

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/secrettest"
	"github.com/contextkit/compact/internal/sharedtest"
)

// FuzzString: String never panics, is idempotent, returns valid UTF-8 with no
// control characters, and no generated secret survives when embedded (on its
// own line) in arbitrary text.
func FuzzString(f *testing.F) {
	for i, c := range secrettest.Cases {
		f.Add(c.In, "", uint8(i), []byte(c.Name))
	}
	for _, c := range secrettest.LookAlikes {
		f.Add(c.In[:min(len(c.In), 200)], "tail", uint8(0), []byte{1, 2, 3})
	}
	f.Add("password=\x1b[", "\xff", uint8(3), []byte{0})
	f.Fuzz(func(t *testing.T, before, after string, kind uint8, seed []byte) {
		for _, s := range []string{before, after, before + after} {
			once := String(s)
			if twice := String(once); twice != once {
				t.Fatalf("not idempotent:\n in    %q\n once  %q\n twice %q", s, once, twice)
			}
			if !utf8.ValidString(once) || StripControl(once) != once {
				t.Fatalf("String(%q) = %q: invalid UTF-8 or control characters", s, once)
			}
		}
		secret, core := secrettest.Makers[int(kind)%len(secrettest.Makers)](seed)
		in := before + "\n" + secret + "\n" + after
		out := String(in)
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

// redactBenchText is the text of every shared transcript, chained the way a
// long session's tool output reads: the raw JSON, which holds every message's
// content and tool arguments.
func redactBenchText(b *testing.B) string {
	var sb strings.Builder
	for _, f := range sharedtest.Files(b) {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		sb.Write(data)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// BenchmarkString measures throughput over real transcript text (about 1.3 MB
// when ../shared/transcripts is present) and over the same text salted with a
// secret every few kilobytes; then over the transcripts' 1,648 message texts
// one by one, as a summary redacts every turn, and over the same texts with
// their lines joined by " ⏎ ", as a summary's list items write them.
func BenchmarkString(b *testing.B) {
	text := redactBenchText(b)
	var salted strings.Builder
	for i := 0; i < len(text); i += 4096 {
		salted.WriteString(text[i:min(len(text), i+4096)])
		c := secrettest.Cases[(i/4096)%len(secrettest.Cases)]
		salted.WriteString("\n" + c.In + "\n")
	}
	for _, bc := range []struct{ name, text string }{{"transcripts", text}, {"salted", salted.String()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				String(bc.text)
			}
		})
	}
	texts := sharedTexts(b)
	joined := make([]string, len(texts))
	for i, s := range texts {
		joined[i] = strings.ReplaceAll(s, "\n", lineJoin)
	}
	for _, bc := range []struct {
		name  string
		texts []string
	}{{"messages", texts}, {"joined", joined}} {
		b.Run(bc.name, func(b *testing.B) {
			size := 0
			for _, s := range bc.texts {
				size += len(s)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, s := range bc.texts {
					String(s)
				}
			}
		})
	}
}

// cleanText, which reads eight bytes at a time, answers as a byte at a
// time does.
func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"", "plain text\n\twith tabs", "a\x7fb", "12345678\x1b[0m", "abcdefgh\u202e", "é\x00", "0123456\x7f", "\r\n\r\n\r\n\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := cleanText(s), referenceCleanText(s); got != want {
			t.Fatalf("cleanText(%q) = %v, want %v", s, got, want)
		}
	})
}

// Every byte StripControl removes is found at every place in a word.
func TestCleanTextFindsEveryControlAnywhere(t *testing.T) {
	for _, bad := range []string{"\x00", "\x01", "\r", "\x1b", "\x1f", "\x7f", "\xc2\x85", "\u202e", "\u2066", "\xff"} {
		for at := 0; at <= 17; at++ {
			s := strings.Repeat("a", at) + bad + strings.Repeat("b", 17-at)
			if cleanText(s) || cleanText(s) != referenceCleanText(s) {
				t.Fatalf("cleanText(%q) = %v, want false", s, cleanText(s))
			}
		}
	}
	if !cleanText(strings.Repeat("tab\there\nnew line ~ é ", 9)) {
		t.Fatal("clean text read as dirty")
	}
}
