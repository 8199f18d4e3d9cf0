// Package redact removes secrets and terminal control from text before it
// leaves the process: what a summarizer is sent, what a handoff packet
// writes, what a log line or a report shows.
//
// [String] replaces each secret it recognises with [Marker] and keeps what
// says what the secret was (a header name, a key name, a well-known public
// prefix), so a reader still knows a credential was there. [JSON] does the
// same for JSON (tool-call arguments, a tool's JSON output): it decodes each
// string, redacts it as String would and encodes it again, so the JSON stays
// valid and a secret inside a quoted shell command goes as it would in plain
// text; [JSONFunc] lets a host add rules of its own. [StripControl]
// makes text safe to print or store: valid UTF-8 without escape sequences or
// control characters. Both are pure functions of their input, safe for
// concurrent use, and idempotent.
//
// The package depends on nothing but the standard library, so a program that
// only redacts stays small.
//
// # What is recognised
//
// Secrets are recognised by class rather than by list:
//
//   - Keys with a published prefix or infix: 174 rules for about 80
//     providers, among them OpenAI, Anthropic, GitHub, GitLab, AWS, Slack,
//     Google, Stripe, Hugging Face, Docker Hub (dckr_pat_), Databricks
//     (dapi), Telegram bot tokens (123456789:AA..., and any token in
//     api.telegram.org/bot<token>/), age secret keys (AGE-SECRET-KEY-1...),
//     Vault, Doppler, Grafana, Atlassian, Sentry, Azure AD client secrets,
//     Terraform Cloud, Groq, xAI and Perplexity, plus JWTs and bearer
//     tokens. gitleaks' public rule list served as a checklist; every rule
//     is written from the provider's documented format.
//   - Credentials in URLs and DSNs of any scheme: postgres://u:p@,
//     mongodb+srv://, amqp://, redis://:pass@, a key written as a URL's user
//     (a Sentry DSN), Go DSNs (user:pass@tcp(host)/db), secret query
//     parameters.
//   - Assignments whose name says secret, in any casing and with any
//     separator: aws_secret_access_key = ..., AWS-SECRET-ACCESS-KEY: ...,
//     secretKey = "...", "x-api-token": "...", TF_VAR_db_password=...; in
//     env files, YAML, INI, code, XML, flags, connection strings, HTTP
//     headers and cookies, and blocks named so (variable "api_key" {
//     default = "..." }).
//   - Credentials passed on a command line: flags whose name says secret
//     (--token, -storepass, -passin pass:...), and the flags of the commands
//     that take credentials whatever the flag's name (docker login -p,
//     mysql -pSECRET, redis-cli -a, sqlcmd -P, curl -u user:pass), in text,
//     in a JSON command and as an argument list.
//   - Private key blocks (PEM, OpenSSH, PGP), even when cut off.
//
// A prefix that names the provider is kept when it is shorter than 12 bytes
// (ghp_[REDACTED]), so a reader still knows what was there and no 12-byte
// piece of a key survives.
//
// In JSON, the value of a key that names a secret ({"api_key": ...},
// {"password": 1234}) goes whole, as does the value of a name-value record
// ({"name": "DB_PASSWORD", "value": ...}). String reads JSON inside text (a
// log line's payload) the same way, so a secret behind JSON escapes goes
// too, and reads a line whose breaks are written " ⏎ " as the lines it
// joins.
//
// # What is left alone
//
// Git SHAs, UUIDs, checksums, the hashes of lockfiles (integrity
// sha512-..., go.sum, --hash=sha256:), image digests, paths, base64
// fixtures and data URLs, token counts (max_tokens=4096), placeholders
// ($TOKEN, <your key>, ****), type hints and code that assigns an
// expression. A random string with no name, prefix or shape that says
// secret is kept: ids, hashes and encoded data look the same. Over 30 real
// agent transcripts (1.2 MB) redaction removes nothing; the repository's
// docs/benchmarks.md has the command.
//
// # Where compact applies it
//
// Everything package compact and its command send or write outside the
// conversation is redacted: what a model summarizer is sent
// (compact.RenderTurns, compact.SummaryPrompt), the extractive summary,
// handoff packets, log lines and the errors in a Status, and the command's
// report and error messages. The compacted history itself is not redacted:
// it is the conversation's own. A property test plants every secret shape
// of the test corpus in every surface (user and assistant text, tool
// arguments bare, named, inside a shell command and before a redirection,
// tool output plain, as JSON and as an error, a handoff note) and checks
// that no piece of 12 bytes or more survives in any of those outputs.
package redact
