package textcut

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The faster Arguments, ReplaceLongStrings, Middle and Runes give what the
// old ones (old_test.go) gave, for every input, down to a panic.

// argumentSeeds are tool-call arguments of every kind Arguments meets:
// JSON with escapes, \u escapes and surrogates, non-ASCII, invalid UTF-8,
// U+2028, control characters, and text that is not JSON.
var argumentSeeds = []string{
	`{"path": "/tmp/x.go", "content": "` + strings.Repeat(`line \"one\"\n\ttab`, 80) + `"}`,
	`{"command": "` + strings.Repeat("héllo wörld 日本語 ", 90) + `", "n": [1, 2.5e3, -0, true, null]}`,
	`{"a": "` + strings.Repeat(`\u00e9\ud83d\ude00\ud800x\u2028 <&>`, 60) + `"}`,
	`{"a": "` + strings.Repeat("\xff\xfe ok \u2029 \x7f", 70) + `"}`,
	`["` + strings.Repeat("x", 3000) + `", "` + strings.Repeat("y\\n", 900) + `"]`,
	strings.Repeat("not json at all, just text\n", 100),
	`{"k": "` + strings.Repeat("a", 2000) + `"} trailing`,
	`  {"deep": [[[["` + strings.Repeat("z\\/", 500) + `"]]]]}  `,
}

// try returns f's result, or the panic it raised, as text.
func try(f func() string) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprint("panic: ", r)
		}
	}()
	return f()
}

var shares = []float64{HeadShare, TwoThirds, 0, 0.5, 1}

func FuzzArgumentsSameAsBefore(f *testing.F) {
	for i, s := range argumentSeeds {
		for _, limit := range []int{-1, 0, 10, 60, 200, 1000} {
			f.Add(s, limit, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, args string, limit int, share uint8) {
		limit %= 5000
		sh := shares[int(share)%len(shares)]
		got := try(func() string { return Arguments(args, limit, sh) })
		want := try(func() string { return oldArguments(args, limit, sh) })
		if got != want {
			t.Fatalf("Arguments(%q, %d, %v)\n= %q\nwant %q", args, limit, sh, got, want)
		}
	})
}

func FuzzReplaceLongStringsSameAsBefore(f *testing.F) {
	for i, s := range argumentSeeds {
		for _, target := range []int{-1, 0, 3, 50, 300} {
			f.Add(s, target, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, s string, target int, share uint8) {
		target %= 5000
		sh := shares[int(share)%len(shares)]
		skip := func(sp Span) bool { return sp.Start%3 == 1 }
		for _, sk := range []func(Span) bool{nil, skip} {
			got := try(func() string { return ReplaceLongStrings(s, StringSpans(s), target, sh, sk) })
			want := try(func() string { return oldReplaceLongStrings(s, oldStringSpans(s), target, sh, sk) })
			if got != want {
				t.Fatalf("ReplaceLongStrings(%q, %d, %v)\n= %q\nwant %q", s, target, sh, got, want)
			}
		}
	})
}

func FuzzMiddleSameAsBefore(f *testing.F) {
	for i, s := range argumentSeeds {
		for _, limit := range []int{-1, 0, 1, 30, 100, 700} {
			f.Add(s, limit, uint8(i), uint8(i))
		}
	}
	f.Add(strings.Repeat("é\n", 300)+strings.Repeat("ab", 200), 90, uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, s string, limit int, share, kind uint8) {
		limit %= 5000
		sh := shares[int(share)%len(shares)]
		u := Unit(kind % 2)
		format := []string{LineMarker, InlineMarker, "", "[%d]", "no count"}[int(kind/2)%5]
		got := try(func() string { return Middle(s, limit, u, sh, format) })
		want := try(func() string { return oldMiddle(s, limit, u, sh, format) })
		if got != want {
			t.Fatalf("Middle(%q, %d, %d, %v, %q)\n= %q\nwant %q", s, limit, u, sh, format, got, want)
		}
		for _, n := range []int{0, 1, 15, 16, 17, 40, limit} {
			if n < 0 {
				continue
			}
			if got, want := runeOffset(s, n), oldRuneOffset(s, n); got != want {
				t.Fatalf("runeOffset(%q, %d) = %d, want %d", s, n, got, want)
			}
			if got, want := tailOffset(s, n), oldTailOffset(s, n); got != want {
				t.Fatalf("tailOffset(%q, %d) = %d, want %d", s, n, got, want)
			}
		}
	})
}

// Runes counts characters as utf8.RuneCountInString does, valid UTF-8 or
// not, on every length around the sixteen bytes it skips at a time.
func TestRunesCountsAsTheStandardLibrary(t *testing.T) {
	for _, base := range []string{"", "a", "é", "日本語", "\xff", "a\xe2\x82", "𝄞x", "\xc3\xa9\xc3", "plain ascii text"} {
		for n := 0; n < 40; n++ {
			s := strings.Repeat(base, n) + base[:len(base)/2]
			if got, want := Runes(s), utf8.RuneCountInString(s); got != want {
				t.Fatalf("Runes(%q) = %d, want %d", s, got, want)
			}
		}
	}
}

func FuzzRunes(f *testing.F) {
	f.Add("héllo wörld, 日本語 \xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Runes(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("Runes(%q) = %d, want %d", s, got, want)
		}
	})
}

// The literal helpers agree with encoding/json on every string.
func FuzzQuoteAsEncodingJSON(f *testing.F) {
	for _, s := range argumentSeeds {
		f.Add(s)
	}
	f.Add("\"\\u12\"")
	f.Fuzz(func(t *testing.T, s string) {
		want, err := oldMarshalString(s)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		writeQuoted(&b, s)
		if got := `"` + b.String() + `"`; got != want {
			t.Fatalf("writeQuoted(%q) = %s, want %s", s, got, want)
		}
		if got, want := 2+quotedRunes(s), utf8.RuneCountInString(want); got != want {
			t.Fatalf("quotedRunes(%q) = %d, want %d", s, got-2, want-2)
		}
		for _, lit := range []string{s, want} {
			var old string
			oldErr := json.Unmarshal([]byte(lit), &old)
			if v, ok := unquote(lit); ok && (oldErr != nil || v != old) {
				t.Fatalf("unquote(%q) = %q, json.Unmarshal = %q, %v", lit, v, old, oldErr)
			}
		}
		if _, ok := unquote(want); !ok {
			t.Fatalf("unquote(%q) refused what encoding/json wrote", want)
		}
	})
}

// jsonSpans finds the literals StringSpans finds in what json.Valid
// accepts, and accepts what it accepts.
func FuzzJSONSpansAsEncodingJSON(f *testing.F) {
	for _, s := range argumentSeeds {
		f.Add(s)
	}
	for _, s := range []string{"", " ", "0", "-0.5e+7", "01", "1.", "1e", "-", "[1,]", "{\"a\":1,}", "[]", "{}", " [ ] ",
		"{\"a\" : [true, false, null, \"\\u00e9\\/\"]}", "\"\\x\"", "\"\t\"", "[\"a\"\"b\"]", "{\"a\"}", "{1:2}", "nul", "truefalse",
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat("{\"k\":", 9999) + "{}" + strings.Repeat("}", 9999)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spans, ok := jsonSpans(s)
		if want := json.Valid([]byte(s)); ok != want {
			t.Fatalf("jsonSpans(%q) valid %v, json.Valid %v", s, ok, want)
		}
		if ok && !slices.Equal(spans, oldStringSpans(s)) {
			t.Fatalf("jsonSpans(%q) = %v, StringSpans %v", s, spans, oldStringSpans(s))
		}
	})
}
