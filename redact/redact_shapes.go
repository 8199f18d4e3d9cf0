package redact

import "strings"

// keyShape describes a credential recognisable by its form alone: a literal
// prefix, then a run of body bytes.
type keyShape struct {
	prefix string
	body   *byteClass
	min    int  // shortest body
	max    int  // longest body; 0: no limit. A longer run is something else.
	whole  bool // the run must end at a non-word byte (it is not part of a longer word)
	keep   bool // the prefix names the kind of key and is kept
	// valid, when set, returns how many bytes of the body are the secret,
	// 0 when the run is not a key after all.
	valid func(body string) int
	// paired marks an AWS access key id: a 40-character secret access key
	// written just after it goes too.
	paired bool
	// lead, when set, finds the part of the secret written before the
	// prefix (a shape known by an infix, such as a Telegram bot token's
	// ":AA"): it returns where the secret starts, or -1 when the bytes
	// before the prefix do not fit, a word included. Such a secret goes
	// whole.
	lead func(s string, p int) int
	// b64Edge rejects a prefix that continues a run of base64 ("+", "/" or
	// "=" just before it): short generic prefixes such as "EAA" turn up in
	// encoded data.
	b64Edge bool
}

// keyShapes lists the credentials String knows by shape. A prefix comes
// before any shorter prefix it starts with, so "sk-ant-" keys are named as
// Anthropic's before the generic "sk-" rule sees them.
var keyShapes = append(coreShapes, providerShapes...)

// coreShapes are the keys of the providers agents meet most.
var coreShapes = []keyShape{
	// Anthropic, then OpenAI (project, service account, admin keys; plain
	// sk- keys only when the body looks random), OpenRouter.
	{prefix: "sk-ant-", body: b64urlClass, min: 20, keep: true},
	{prefix: "sk-proj-", body: b64urlClass, min: 20, keep: true},
	{prefix: "sk-svcacct-", body: b64urlClass, min: 20, keep: true},
	{prefix: "sk-admin-", body: b64urlClass, min: 20, keep: true},
	{prefix: "sk-or-v1-", body: hexClass, min: 32, keep: true},
	{prefix: "sk-", body: alnumClass, min: 20, keep: true, valid: randomKeyBody},
	// GitHub: personal, OAuth, user-to-server, server-to-server, refresh
	// tokens, fine-grained personal access tokens.
	{prefix: "ghp_", body: alnumClass, min: 20, keep: true},
	{prefix: "gho_", body: alnumClass, min: 20, keep: true},
	{prefix: "ghu_", body: alnumClass, min: 20, keep: true},
	{prefix: "ghs_", body: alnumClass, min: 20, keep: true},
	{prefix: "ghr_", body: alnumClass, min: 20, keep: true},
	{prefix: "github_pat_", body: wordClass, min: 20, keep: true},
	// GitLab personal and pipeline trigger tokens.
	{prefix: "glpat-", body: b64urlClass, min: 20, keep: true},
	{prefix: "glptt-", body: b64urlClass, min: 20, keep: true},
	// AWS access key ids (long-term and temporary).
	{prefix: "AKIA", body: newClass(upperChars, digitChars), min: 16, max: 16, whole: true, keep: true, paired: true},
	{prefix: "ASIA", body: newClass(upperChars, digitChars), min: 16, max: 16, whole: true, keep: true, paired: true},
	// Slack tokens and incoming webhooks; Discord webhooks.
	{prefix: "xoxb-", body: newClass(alnumChars, "-"), min: 10, keep: true},
	{prefix: "xoxp-", body: newClass(alnumChars, "-"), min: 10, keep: true},
	{prefix: "xoxa-", body: newClass(alnumChars, "-"), min: 10, keep: true},
	{prefix: "xoxr-", body: newClass(alnumChars, "-"), min: 10, keep: true},
	{prefix: "xoxs-", body: newClass(alnumChars, "-"), min: 10, keep: true},
	{prefix: "xoxe-", body: newClass(alnumChars, "-."), min: 10, keep: true},
	{prefix: "https://hooks.slack.com/services/", body: newClass(alnumChars, "/_-"), min: 8, keep: true},
	{prefix: "https://hooks.slack.com/workflows/", body: newClass(alnumChars, "/_-"), min: 8, keep: true},
	{prefix: "https://hooks.slack.com/triggers/", body: newClass(alnumChars, "/_-"), min: 8, keep: true},
	{prefix: "https://discord.com/api/webhooks/", body: newClass(alnumChars, "/_-"), min: 8, keep: true},
	{prefix: "https://discordapp.com/api/webhooks/", body: newClass(alnumChars, "/_-"), min: 8, keep: true},
	// Hugging Face.
	{prefix: "hf_", body: alnumClass, min: 30, keep: true},
	// Google API keys, OAuth access tokens, OAuth client secrets.
	{prefix: "AIza", body: b64urlClass, min: 35, max: 35, whole: true, keep: true},
	{prefix: "ya29.", body: newClass(alnumChars, "_-."), min: 20, keep: true},
	{prefix: "GOCSPX-", body: b64urlClass, min: 20, keep: true},
	// Stripe secret, restricted and live publishable keys, webhook secrets.
	// Test publishable keys (pk_test_) are public by design and kept.
	{prefix: "sk_live_", body: alnumClass, min: 16, keep: true},
	{prefix: "sk_test_", body: alnumClass, min: 16, keep: true},
	{prefix: "rk_live_", body: alnumClass, min: 16, keep: true},
	{prefix: "rk_test_", body: alnumClass, min: 16, keep: true},
	{prefix: "pk_live_", body: alnumClass, min: 16, keep: true},
	{prefix: "whsec_", body: alnumClass, min: 24, keep: true},
	// npm, PyPI, SendGrid, Twilio API key SIDs, Shopify, DigitalOcean.
	{prefix: "npm_", body: alnumClass, min: 36, max: 36, whole: true, keep: true},
	{prefix: "pypi-AgE", body: b64urlClass, min: 40, keep: true},
	{prefix: "SG.", body: newClass(alnumChars, "_-."), min: 60, keep: true, valid: sendGridBody},
	{prefix: "SK", body: hexClass, min: 32, max: 32, whole: true, keep: true, valid: hexKeyBody},
	{prefix: "shpat_", body: hexClass, min: 32, keep: true},
	{prefix: "shpss_", body: hexClass, min: 32, keep: true},
	{prefix: "shpca_", body: hexClass, min: 32, keep: true},
	{prefix: "dop_v1_", body: hexClass, min: 64, keep: true},
	{prefix: "doo_v1_", body: hexClass, min: 64, keep: true},
	// JWTs (and JWEs): base64url JSON header, payload, signature.
	{prefix: "eyJ", body: newClass(alnumChars, "_-."), min: 20, valid: jwtBody},
	// A bearer token outside any header ("curl ... Bearer abc123").
	{prefix: "Bearer ", body: bearerClass, min: 8, keep: true, valid: tokenBody},
	{prefix: "bearer ", body: bearerClass, min: 8, keep: true, valid: tokenBody},
	{prefix: "BEARER ", body: bearerClass, min: 8, keep: true, valid: tokenBody},
}

var bearerClass = newClass(alnumChars, "._~+/=-")

// redactKeyShapes replaces every credential of a known shape, in one pass:
// a table of the prefixes' first two bytes picks the few positions worth
// trying, and at each the shapes starting with those bytes are tried in
// keyShapes order. A text where no prefix is found is returned without
// setting up the rest (a splicer, a run cache).
func redactKeyShapes(s string) string {
	i, j := nextShapePrefix(s, 0)
	if i < 0 {
		return s
	}
	sp := splicer{src: s}
	var runs runCache
	for i >= 0 {
		next := i + 1
		for _, k := range shapeIndex.groupAt(s, i)[j:] {
			if sh := &keyShapes[k]; strings.HasPrefix(s[i:], sh.prefix) {
				if end, ok := sh.redactAt(&sp, s, i, runs.of(sh.body)); ok {
					next = end
					break
				}
			}
		}
		i, j = nextShapePrefix(s, next)
	}
	return sp.String()
}

// nextShapePrefix returns the first position at or after i where a shape's
// prefix is written, outside a word unless the shape may start inside one
// (see shapeTable.inWord), and the index in its group (groupAt) of the
// first shape whose prefix it is; or -1.
func nextShapePrefix(s string, i int) (int, int) {
	table := &shapeIndex.table
	for ; i+1 < len(s); i++ {
		// The loop of the rule, and of much of String's time: kept tight,
		// the table read through a local so no iteration reloads it.
		for i+1 < len(s) && table[uint16(s[i])<<8|uint16(s[i+1])] == 0 {
			i++
		}
		if i+1 >= len(s) {
			break
		}
		if i > 0 && wordClass[s[i-1]] && !shapeIndex.inWord[s[i]] && !escapedBreak(s, i) {
			continue // inside a word, where redactAt takes none of these shapes
		}
		for j, k := range shapeIndex.groupAt(s, i) {
			if strings.HasPrefix(s[i:], keyShapes[k].prefix) {
				return i, j
			}
		}
	}
	return -1, 0
}

// bodyRun remembers a run of body bytes already measured: a later candidate
// starting inside it ends where it ends, so no run is scanned twice.
type bodyRun struct{ start, end int }

// runCache keeps, per body class, the last run measured: where a run of a
// class ends depends only on the class and where it starts, so shapes that
// share a class share it. It lives on the stack: no allocation per text.
type runCache struct {
	n       int
	classes [maxCachedClasses]*byteClass
	runs    [maxCachedClasses]bodyRun
	spare   bodyRun // for a class past the cache's size: never reused
}

// maxCachedClasses is more than the distinct body classes of keyShapes.
const maxCachedClasses = 64

// of returns the run remembered for class.
func (c *runCache) of(class *byteClass) *bodyRun {
	for i := 0; i < c.n; i++ {
		if c.classes[i] == class {
			return &c.runs[i]
		}
	}
	if c.n == maxCachedClasses {
		c.spare = bodyRun{}
		return &c.spare
	}
	c.classes[c.n] = class
	c.n++
	return &c.runs[c.n-1]
}

// redactAt tries the shape at s[p:] and, when it matches, replaces the
// secret and returns the index after it.
func (k *keyShape) redactAt(sp *splicer, s string, p int, run *bodyRun) (int, bool) {
	if !strings.HasPrefix(s[p:], k.prefix) {
		return 0, false
	}
	first := p // where the secret starts
	if k.lead != nil {
		if first = k.lead(s, p); first < 0 {
			return 0, false
		}
	}
	if k.lead == nil && first > 0 && wordClass[s[first]] && wordClass[s[first-1]] && !escapedBreak(s, first) {
		return 0, false // inside a longer word: "task-...", "disk-..."
	}
	if first > 0 && k.b64Edge && strings.IndexByte("+/=", s[first-1]) >= 0 {
		return 0, false
	}
	start := p + len(k.prefix)
	end := run.end
	if run.end == 0 || start < run.start || start > run.end {
		end = k.body.run(s, start)
		*run = bodyRun{start, end}
	}
	n := end - start
	if n < k.min || (k.max > 0 && n > k.max) || (k.whole && end < len(s) && wordClass[s[end]]) {
		return 0, false
	}
	if k.valid != nil {
		if n = k.valid(s[start:end]); n == 0 {
			return 0, false
		}
		end = start + n
	}
	from := first
	if k.keep && k.lead == nil {
		from = start
	}
	sp.replace(from, end, Marker)
	if k.paired {
		if a, b, ok := pairedSecret(s, end); ok {
			sp.replace(a, b, Marker)
			end = b
		}
	}
	return end, true
}

// escapedBreak reports whether s[i] follows an escaped line break or tab
// ("\\n", "\\t", "\\r" in JSON or a quoted string): a word starts there,
// though the byte before it is a letter.
func escapedBreak(s string, i int) bool {
	return i >= 2 && s[i-2] == '\\' && strings.IndexByte("ntr", s[i-1]) >= 0 &&
		(i < 3 || s[i-3] != '\\')
}

// shapeIndex maps the first two bytes of a position to the shapes whose
// prefix starts with them: table holds 1 + an index into groups, 0 for none.
var shapeIndex = buildShapeIndex()

type shapeTable struct {
	table  [1 << 16]uint8
	groups [][]int
	// inWord holds the first bytes of the prefixes that a shape may start
	// with right after a word byte: one with a lead, or one no word holds
	// (".atlasv1.", ":A"). Every other shape starts a word, as redactAt
	// requires (or follows an escaped line break).
	inWord byteClass
}

func buildShapeIndex() *shapeTable {
	t := new(shapeTable)
	for k, sh := range keyShapes {
		key := uint16(sh.prefix[0])<<8 | uint16(sh.prefix[1])
		if t.table[key] == 0 {
			t.groups = append(t.groups, nil)
			t.table[key] = uint8(len(t.groups))
		}
		g := t.table[key] - 1
		t.groups[g] = append(t.groups[g], k)
		if sh.lead != nil || !wordClass[sh.prefix[0]] {
			t.inWord[sh.prefix[0]] = true
		}
	}
	return t
}

// groupAt returns the shapes (indices into keyShapes) whose prefix starts
// with the two bytes at s[i], a pair table holds.
func (t *shapeTable) groupAt(s string, i int) []int {
	return t.groups[t.table[uint16(s[i])<<8|uint16(s[i+1])]-1]
}

// pairedSecret finds an AWS secret access key (40 base64 characters) written
// just after an access key id, as in a credentials CSV or "id secret" pair.
func pairedSecret(s string, i int) (start, end int, ok bool) {
	j := i
	for j < len(s) && j-i < 8 && strings.IndexByte(" \t\n,;:|\"'=", s[j]) >= 0 {
		j++
	}
	if j == i {
		return 0, 0, false
	}
	e := b64Class.run(s, j)
	if e-j != 40 || (e < len(s) && s[e] == '=') {
		return 0, 0, false
	}
	return j, e, true
}

// randomKeyBody accepts the body of a plain "sk-" key when it looks random:
// letters and digits, mixed case or at least 32 long (hex keys). A word such
// as "sk-learn" never gets this far; "sk-LearnTutorial" has no digit.
func randomKeyBody(body string) int {
	upper, lower, digit := classes(body)
	if !digit || !(upper || lower) {
		return 0
	}
	if (upper && lower) || len(body) >= 32 {
		return len(body)
	}
	return 0
}

// hexKeyBody accepts a hex body holding both digits and letters, as random
// hex does; "SK" followed by 32 digits is a number.
func hexKeyBody(body string) int {
	upper, lower, digit := classes(body)
	if digit && (upper || lower) {
		return len(body)
	}
	return 0
}

// sendGridBody accepts "<22 chars>.<43 chars>".
func sendGridBody(body string) int {
	if len(body) >= 66 && body[22] == '.' && b64urlClass.run(body[:66], 23) == 66 {
		return 66
	}
	return 0
}

// jwtBody accepts a JWT's body after "eyJ": header, payload and signature
// (or the five parts of a JWE), dot-separated, and returns its length. An
// unsigned token ends with its second dot. A dot after the last part (the
// end of a sentence) is not taken.
func jwtBody(body string) int {
	seg := 0
	end := 0
	for i := 0; seg < 5; seg++ {
		j := b64urlClass.run(body, i)
		if seg < 2 && j-i < 4 {
			return 0
		}
		if j == i { // an empty signature: unsigned
			if seg == 2 {
				return end + 1
			}
			break
		}
		end = j
		if j >= len(body) || body[j] != '.' {
			seg++
			break
		}
		i = j + 1
	}
	if seg < 3 {
		return 0
	}
	return end
}

// tokenBody accepts a bearer token: a digit in it, or long enough that no
// English word after "Bearer" is mistaken for one.
func tokenBody(body string) int {
	_, _, digit := classes(body)
	if digit || len(body) >= 20 {
		return len(body)
	}
	return 0
}

// classes reports which of upper-case letters, lower-case letters and digits
// s holds.
func classes(s string) (upper, lower, digit bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return upper, lower, digit
}
