package compact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fake credentials with the shapes of real ones. None of them works.
const (
	fakeOpenAIProj = "sk-proj-PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA-2O76UMFx"
	fakeOpenAI     = "sk-SXpfKtHF4vUCsMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8"
	fakeHexKey     = "sk-8f219e9cb0eb53f16947ccf25ec84d8d"
	fakeAnthropic  = "sk-ant-api03-TWDtkwtDDb_xHKas1VOqg6YYZYn9ZhyiA4uoRgnatmUdjAWtGSU8po_799NksnRH9ucAUsdMlHUvTCQC"
	fakeGitHub     = "ghp_NZYW2mZp0zVZomHFwUbbYrEqmSM9wCZ7Uw9x"
	fakeGitHubPAT  = "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"
	fakeAWSID      = "AKIAIOSFODNN7EXAMPLE"
	fakeAWSSecret  = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	fakeSlack      = "xoxb-1234567890-1234567890123-rcXgGCJbW56eCuNGMGmSrCGI"
	fakeHF         = "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"
	fakeGoogle     = "AIzar7CmY_uCu3ZR1zTOlUcR64cXQLioDnkHIfx"
	fakeStripe     = "sk_live_rWi0B26R08qzjI6GKFSufrdZ"
	fakeGitLab     = "glpat-L5wIScGebcy8F5n3-YNB"
	fakeNpm        = "npm_ovm14TUOizwd1iaeOV4qBkdfQ1y3GQsMpSsc"
	fakeSendGrid   = "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"
	fakeTwilio     = "SK22f828767efc2f91624a8940f1f836f9"
	fakeJWT        = "eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.eyJzdWIiOiAiMTIzNDU2Nzg5MCIsICJuYW1lIjogIkpvaG4ifQ.K777pzNk8cL6j5IXAAjlsHUqJoUD-_Ydua_5ZMs1SWO"
	fakeKeyBody    = "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\naIvnMZ2bqr3cF9AyUIaZkUwcQyMJBZr9SHh0Cv3MmDrbB0Y0aDfW1dYFbYo2ZsNS\nCnUKa8/Sfl0gH4JOD0NRwmxDfmlwDrFdNGn8XeBJwX5ZMUcqBy1lZ/9IR9ivA0Pm"
)

// secretCases are secrets in the forms they take in tool output, code and
// configuration. Each must lose every string in gone and keep every string
// in kept: the kind of secret stays readable, only the secret goes.
var secretCases = []struct {
	name string
	in   string
	gone []string
	kept []string
}{
	// URLs
	{"password in a git URL", "git clone https://alice:s3cr3tP4ss@github.com/org/repo.git", []string{"s3cr3tP4ss"}, []string{"https://alice:", "@github.com/org/repo.git"}},
	{"postgres URL", "DATABASE_URL=postgres://app:Pg_pass-123@db.internal:5432/prod", []string{"Pg_pass-123"}, []string{"DATABASE_URL=postgres://app:", "@db.internal:5432/prod"}},
	{"redis URL with no user", "connecting to redis://:r3disPass@cache:6379/0", []string{"r3disPass"}, []string{"redis://:", "@cache:6379/0"}},
	{"password holding @ and :", "mongodb+srv://root:p@ss:w0rd@cluster0.mongodb.net/db", []string{"p@ss:w0rd", "ss:w0rd"}, []string{"mongodb+srv://root:", "@cluster0.mongodb.net/db"}},
	{"access_token query parameter", "GET https://api.example.com/v1/items?access_token=abc123def456&page=2 200", []string{"abc123def456"}, []string{"?access_token=", "&page=2 200"}},
	{"Google key query parameter", "https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key=AbCdEf123456", []string{"AbCdEf123456"}, []string{"address=Paris&key="}},
	{"S3 presigned URL", "https://b.s3.amazonaws.com/f?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20240101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20240101T000000Z&X-Amz-Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024", []string{"IOSFODNN7EXAMPLE", "fe5f80f77d5fa3be"}, []string{"X-Amz-Algorithm=AWS4-HMAC-SHA256", "X-Amz-Date=20240101T000000Z", "X-Amz-Signature=", "X-Amz-Credential="}},
	{"Azure SAS signature", "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sp=r&sig=Zm9vYmFyYmF6cXV4%2BabcDEF%3D", []string{"Zm9vYmFyYmF6cXV4"}, []string{"sv=2022-11-02&sp=r&sig="}},
	{"OAuth code in a callback", "GET /callback?code=4/0AX4XfWhabcDEF&state=xyz", []string{"0AX4XfWhabcDEF"}, []string{"?code=", "&state=xyz"}},
	{"JDBC password parameter", "jdbc:mysql://db:3306/app?user=root&password=Jdbc_pw1", []string{"Jdbc_pw1"}, []string{"?user=root&password="}},

	// Headers
	{"Authorization Bearer header", "Authorization: Bearer abc.def.ghi-123", []string{"abc.def.ghi-123"}, []string{"Authorization: Bearer "}},
	{"curl Basic header", `curl -H "Authorization: Basic dXNlcjpwYXNzd29yZA==" https://api.example.com`, []string{"dXNlcjpwYXNzd29yZA=="}, []string{`curl -H "Authorization: Basic `, `" https://api.example.com`}},
	{"curl token header", `curl -H 'Authorization: token 0123456789abcdef0123' https://api.github.com/user`, []string{"0123456789abcdef0123"}, []string{"Authorization: token ", "' https://api.github.com/user"}},
	{"Authorization in JSON", `{"headers": {"Authorization": "Bearer tok_9f8e7d6c5b4a", "Accept": "application/json"}}`, []string{"tok_9f8e7d6c5b4a"}, []string{`"Authorization": "Bearer `, `"Accept": "application/json"`}},
	{"Authorization in escaped JSON", `"{\"Authorization\": \"Bearer sEcReT123\", \"x\": 1}"`, []string{"sEcReT123"}, []string{`\"Authorization\": \"Bearer `, `\"x\": 1`}},
	{"Proxy-Authorization Digest", `Proxy-Authorization: Digest username="bob", response="6629fae49393a05397450978507c4ef1"`, []string{"6629fae49393a05397450978507c4ef1"}, []string{"Proxy-Authorization: Digest "}},
	{"AWS SigV4 header", "> authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20240101/us-east-1/s3/aws4_request, Signature=deadbeef0123\n> host: s3.amazonaws.com", []string{"deadbeef0123", "IOSFODNN7EXAMPLE"}, []string{"> authorization: AWS4-HMAC-SHA256 ", "> host: s3.amazonaws.com"}},
	{"Cookie header", "Cookie: sessionid=38afes7a8; csrftoken=abcDEF123", []string{"38afes7a8", "abcDEF123"}, []string{"Cookie: sessionid=", "; csrftoken="}},
	{"Set-Cookie keeps attributes", "Set-Cookie: session=eyQ9sPl3x; Path=/; HttpOnly; Secure; Max-Age=3600", []string{"eyQ9sPl3x"}, []string{"Set-Cookie: session=", "Path=/; HttpOnly; Secure; Max-Age=3600"}},
	{"X-API-Key header", "X-API-Key: a1b2c3d4e5f6g7h8\nAccept: */*", []string{"a1b2c3d4e5f6g7h8"}, []string{"X-API-Key: ", "Accept: */*"}},
	{"X-Auth-Token in a Python dict", `requests.get(url, headers={"X-Auth-Token": "f00dbabe1234"})`, []string{"f00dbabe1234"}, []string{`headers={"X-Auth-Token": "`, `"})`}},

	// Assignments
	{"env var", "OPENAI_API_KEY=abc123-not-a-prefixed-key", []string{"abc123-not-a-prefixed-key"}, []string{"OPENAI_API_KEY="}},
	{"export", "export AWS_SECRET_ACCESS_KEY=" + fakeAWSSecret + "\nexport AWS_REGION=us-east-1", []string{fakeAWSSecret}, []string{"export AWS_SECRET_ACCESS_KEY=", "export AWS_REGION=us-east-1"}},
	{"quoted .env value", `STRIPE_SECRET="whatever123"`, []string{"whatever123"}, []string{`STRIPE_SECRET="`}},
	{"PowerShell env", `$env:GITHUB_TOKEN = "tok-9d8c7b6a"`, []string{"tok-9d8c7b6a"}, []string{`$env:GITHUB_TOKEN = "`}},
	{"YAML", "db:\n  user: app\n  password: hunter2\n  port: 5432", []string{"hunter2"}, []string{"user: app", "password: ", "port: 5432"}},
	{"JSON", `{"username": "bob", "password": "correct horse battery staple"}`, []string{"correct horse battery staple"}, []string{`"username": "bob"`, `"password": "`}},
	{"Python keyword argument", `client = Client(api_key="abcd1234efgh5678", timeout=30)`, []string{"abcd1234efgh5678"}, []string{`Client(api_key="`, `timeout=30)`}},
	{"Go short declaration", `secret := "s3cr3t-value"`, []string{"s3cr3t-value"}, []string{`secret := "`}},
	{"PHP array", `'db_password' => 'Pa55w0rd!',`, []string{"Pa55w0rd!"}, []string{`'db_password' => '`}},
	{"INI", "[client]\nuser = app\npassword = Ini_pw-9 ; local only\nhost = db", []string{"Ini_pw-9"}, []string{"user = app\npassword = ", " ; local only\nhost = db"}},
	{"TOML", `[auth]` + "\n" + `client_secret = "cs_8f7e6d5c4b3a"`, []string{"cs_8f7e6d5c4b3a"}, []string{`client_secret = "`}},
	{"ADO.NET connection string", "Server=tcp:db.example.com,1433;Database=app;User ID=admin;Password=Sup3r$ecret;Encrypt=True;", []string{"Sup3r$ecret"}, []string{"User ID=admin;Password=", ";Encrypt=True;"}},
	{"ODBC connection string", "DRIVER={ODBC Driver 18};SERVER=db;UID=sa;PWD=Xy9!pq;", []string{"Xy9!pq"}, []string{"UID=sa;PWD=", ";"}},
	{"Azure storage connection string", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=dGhpcyBpcyBhIGtleQ+/abc==;EndpointSuffix=core.windows.net", []string{"dGhpcyBpcyBhIGtleQ"}, []string{"AccountName=acct;AccountKey=", ";EndpointSuffix=core.windows.net"}},
	{"XML element", "<config><user>bob</user><password>hunter2</password></config>", []string{"hunter2"}, []string{"<user>bob</user><password>", "</password>"}},
	{"secret hidden by colour codes", "password=\x1b[31mhunter2\x1b[0m done", []string{"hunter2"}, []string{"password=", " done"}},

	// Command lines
	{"flag with a separate value", "mytool deploy --api-key 7f3k9x2m1q --region us-east-1", []string{"7f3k9x2m1q"}, []string{"mytool deploy --api-key ", " --region us-east-1"}},
	{"docker login password flag", "docker login -u bob --password Dck3rPw registry.io", []string{"Dck3rPw"}, []string{"docker login -u bob --password ", " registry.io"}},
	{"curl -u", "curl -u admin:Adm1nPass https://host/api", []string{"Adm1nPass"}, []string{"curl -u admin:", " https://host/api"}},
	{"mysql -p", "mysql -u root -pS3cretPw mydb", []string{"S3cretPw"}, []string{"mysql -u root -p", " mydb"}},
	{"sshpass -p", "sshpass -p 'hunter22' ssh user@host", []string{"hunter22"}, []string{"sshpass -p ", " ssh user@host"}},
	{".netrc entry", "machine api.heroku.com\n  login me@example.com\n  password 01234567-89ab-cdef", []string{"01234567-89ab-cdef"}, []string{"machine api.heroku.com", "login me@example.com", "password "}},

	// Keys known by shape
	{"OpenAI project key", "key: " + fakeOpenAIProj + " (project)", []string{fakeOpenAIProj[8:]}, []string{"sk-proj-", " (project)"}},
	{"OpenAI legacy key", "using " + fakeOpenAI + " now", []string{fakeOpenAI[3:]}, []string{"using sk-", " now"}},
	{"hex key of an OpenAI-compatible provider", "deepseek " + fakeHexKey, []string{fakeHexKey[3:]}, []string{"deepseek sk-"}},
	{"Anthropic key", "ANTHROPIC says " + fakeAnthropic + ".", []string{fakeAnthropic[7:]}, []string{"ANTHROPIC says ", "."}},
	{"GitHub token", "remote: " + fakeGitHub, []string{fakeGitHub[4:]}, []string{"remote: ghp_"}},
	{"GitHub fine-grained token", "token " + fakeGitHubPAT, []string{fakeGitHubPAT[11:], "uqIA1id6Vw5DQL05"}, []string{"github_pat_"}},
	{"AWS key pair in a credentials CSV", "User,Access key ID,Secret access key\nci," + fakeAWSID + "," + fakeAWSSecret + "\n", []string{"IOSFODNN7EXAMPLE", fakeAWSSecret}, []string{"User,Access key ID,Secret access key\nci,AKIA"}},
	{"AWS temporary key id", "assumed role with ASIAY34FZKBOKMUTVV7A ok", []string{"Y34FZKBOKMUTVV7A"}, []string{"with ASIA", " ok"}},
	{"Slack bot token", "SLACK " + fakeSlack, []string{fakeSlack[5:]}, []string{"SLACK xoxb-"}},
	{"Slack webhook", "post to https://hooks.slack.com/services/T0000000/B0000000/XXXXXXXXXXXXXXXXXXXXXXXX now", []string{"T0000000/B0000000/XXXX"}, []string{"https://hooks.slack.com/services/", " now"}},
	{"Discord webhook", "https://discord.com/api/webhooks/123456789012345678/AbCdEf-GhIjKl_MnOp", []string{"AbCdEf-GhIjKl_MnOp"}, []string{"https://discord.com/api/webhooks/"}},
	{"Hugging Face token", "login " + fakeHF, []string{fakeHF[3:]}, []string{"login hf_"}},
	{"Google API key", "maps " + fakeGoogle, []string{fakeGoogle[4:]}, []string{"maps AIza"}},
	{"Google OAuth client secret", "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", []string{"5Q52ryFlwRlOEVHzc0X0AWIRh-JU"}, []string{"GOCSPX-"}},
	{"Stripe secret key", "stripe.api_key = '" + fakeStripe + "'", []string{fakeStripe[8:]}, []string{"stripe.api_key = '"}},
	{"Stripe restricted and live publishable keys", "rk_live_SlB5er8bOfZqfM2oeq3hDavJ pk_live_A76rNicHTp8hkqdlm7tOtHWn", []string{"SlB5er8bOfZqfM2oeq3hDavJ", "A76rNicHTp8hkqdlm7tOtHWn"}, []string{"rk_live_", "pk_live_"}},
	{"GitLab token", "git push https://oauth2:" + fakeGitLab + "@gitlab.com/g/p.git", []string{fakeGitLab[6:]}, []string{"https://oauth2:", "@gitlab.com/g/p.git"}},
	{"npm token", "//registry.npmjs.org/:_authToken=" + fakeNpm, []string{fakeNpm[4:]}, []string{"//registry.npmjs.org/:_authToken="}},
	{"SendGrid key", "SENDGRID " + fakeSendGrid, []string{fakeSendGrid[3:]}, []string{"SENDGRID "}},
	{"Twilio API key", "twilio " + fakeTwilio, []string{fakeTwilio[2:]}, []string{"twilio SK"}},
	{"JWT", "id_token_hint " + fakeJWT + " expired", []string{fakeJWT, "K777pzNk8cL6j5IX"}, []string{"id_token_hint ", " expired"}},
	{"bare bearer token", "retrying with Bearer 9a8b7c6d5e4f3a2b1c", []string{"9a8b7c6d5e4f3a2b1c"}, []string{"retrying with Bearer "}},

	// Private keys
	{"RSA private key", "key:\n-----BEGIN RSA PRIVATE KEY-----\n" + fakeKeyBody + "\n-----END RSA PRIVATE KEY-----\ndone", []string{"MIIEowIBAAKCAQEA", "ygWyF8PbnGy0AHB7", "ZMUcqBy1lZ"}, []string{"key:\n-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----\ndone"}},
	{"OpenSSH private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----", []string{"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUA"}, []string{"-----BEGIN OPENSSH PRIVATE KEY-----", "-----END OPENSSH PRIVATE KEY-----"}},
	{"EC private key", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49\n-----END EC PRIVATE KEY-----", []string{"MHcCAQEEIIrYSSNQFaA2Hwf1"}, []string{"-----BEGIN EC PRIVATE KEY-----"}},
	{"encrypted PKCS#8 key", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI\n-----END ENCRYPTED PRIVATE KEY-----", []string{"MIIFHDBOBgkqhkiG9w0BBQ0w"}, []string{"-----BEGIN ENCRYPTED PRIVATE KEY-----"}},
	{"PGP private key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF0p9bgBCADQ3g5Mfp8wLj6Fy2k2pY7vGzYx\n=a1b2\n-----END PGP PRIVATE KEY BLOCK-----", []string{"lQOYBF0p9bgBCADQ3g5Mfp8w", "GnuPG v2"}, []string{"-----BEGIN PGP PRIVATE KEY BLOCK-----", "-----END PGP PRIVATE KEY BLOCK-----"}},
	{"private key in a JSON service account", `{"private_key_id": "abc", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n", "client_email": "x@p.iam.gserviceaccount.com"}`, []string{"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"}, []string{`"client_email": "x@p.iam.gserviceaccount.com"`, `"private_key_id": "abc"`}},
	{"private key cut off by truncation", "$ cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n" + fakeKeyBody + "\n... (output truncated)\n$ ls", []string{"MIIEowIBAAKCAQEA", "ZMUcqBy1lZ"}, []string{"$ cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----", "... (output truncated)\n$ ls"}},
}

func TestRedactRemovesSecretsAndKeepsTheirKind(t *testing.T) {
	for _, tt := range secretCases {
		t.Run(tt.name, func(t *testing.T) {
			got := Redact(tt.in)
			assert.Contains(t, got, Redacted)
			for _, g := range tt.gone {
				assert.NotContains(t, got, g, "secret survived")
			}
			for _, k := range tt.kept {
				assert.Contains(t, got, k, "context lost")
			}
			assert.Equal(t, got, Redact(got), "not idempotent")
		})
	}
}

// lookAlikes resemble secrets and are not: Redact returns them unchanged.
var lookAlikes = []struct{ name, in string }{
	{"scikit-learn", "pip install scikit-learn  # imported as sklearn; see the sk-learn docs"},
	{"task and skip ids", "Closing task-1234 and task-5678-followup; run with --skip-tests=slow and skip-tests"},
	{"git hash", "commit 3f2c1e0b9a8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b\nAuthor: Jane Doe <jane@example.com>"},
	{"UUID", "request id 123e4567-e89b-12d3-a456-426614174000 failed"},
	{"password prose", "We sent a password reset email; the password must have 12 characters."},
	{"token counts", "token_count=17 max_tokens=4096 prompt_tokens: 12 --max-tokens 2048"},
	{"usage JSON", `{"usage": {"prompt_tokens": 12, "completion_tokens": 34, "total_tokens": 46}}`},
	{"bearer of bad news", "He was the Bearer of bad news. Bearer authentication uses tokens."},
	{"Hugging Face function", "from huggingface_hub import hf_hub_download"},
	{"Authorization prose", "Set the Authorization header to a bearer token. Authorization: required"},
	{"f-string header", `headers = {"Authorization": f"Bearer {token}"}`},
	{"shell variable header", `curl -H "Authorization: Bearer $TOKEN" -H "x-api-key: $ANTHROPIC_API_KEY" https://api.example.com`},
	{"environment lookup", `api_key = os.environ["OPENAI_API_KEY"]` + "\npassword = getpass.getpass()\ntoken = self.token"},
	{"type hints", "def login(username: str, password: str) -> bool:"},
	{"token type and metadata names", "token_type: bearer\nsecret_name: prod/db/credentials\npassword_min_length = 12\nauth_method: oauth2"},
	{"working directory", "PWD=/home/user/project\nOLDPWD=/home/user"},
	{"page token", `{"next_page_token": "CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA3", "items": []}`},
	{"ssh remote", "git@github.com:org/repo.git and ssh://git@github.com:22/org/repo"},
	{"public keys", "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 user@host\n-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----"},
	{"placeholders", "OPENAI_API_KEY=your-api-key-here\npassword: ********\ntoken: ${{ secrets.GITHUB_TOKEN }}\napi_key=<your key>"},
	{"author and tokenizer", `Use the auth module. author: Jane Doe; tokenizer = "cl100k_base"`},
	{"plain URLs", "http://localhost:8080/path?page=2&sort=asc https://example.com/search?q=token+count"},
	{"Stripe test publishable key", "Stripe.js uses pk_test_TYooMQauvdEDq54NiTphI7jx"},
	{"AKIA in prose", "AKIA is the prefix of AWS access key ids; ASIA marks temporary ones."},
	{"other keys", "sort_key=name primary_key: id keyboard: qwerty"},
	{"comparisons", "if token == expected or password != other:"},
	{"code that assigns an expression", `let token = try tokens.shift()? else "" end`},
	{"JWT prose", "The JWT starts with eyJ and has three parts."},
	{"booleans", `{"auth": true, "password": null, "token": ""}`},
	{"Rust scope", "use crate::auth::token::Verifier;"},
	{"data URL", `<img src="data:image/png;base64,` + strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", 200) + `">`},
}

func TestRedactLeavesLookAlikesAlone(t *testing.T) {
	for _, tt := range lookAlikes {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.in, Redact(tt.in))
		})
	}
}

func TestRedactExactForms(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Authorization: Bearer abc123xyz", "Authorization: Bearer [REDACTED]"},
		{`"password": "hunter2"`, `"password": "[REDACTED]"`},
		{"https://bob:pw@host/x", "https://bob:[REDACTED]@host/x"},
		{fakeGitHub, "ghp_[REDACTED]"},
		{fakeJWT, "[REDACTED]"},
		{"Set-Cookie: id=a3f; Path=/", "Set-Cookie: id=[REDACTED]; Path=/"},
		{"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----", "-----BEGIN EC PRIVATE KEY-----[REDACTED]-----END EC PRIVATE KEY-----"},
		{"", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Redact(tt.in), "Redact(%q)", tt.in)
	}
}

func TestRedactCorpusSizes(t *testing.T) {
	// The corpus is the specification: keep it broad.
	assert.GreaterOrEqual(t, len(secretCases), 40)
	assert.GreaterOrEqual(t, len(lookAlikes), 20)
}

// Tool arguments are JSON: a secret inside a JSON string must go without
// breaking the JSON around it.
func TestRedactKeepsJSONValid(t *testing.T) {
	got := Redact(`{"q": "a?x=1\u0026token=abc123", "cmd": "echo Authorization: Bearer abc123"}`)
	assert.Equal(t, `{"q": "a?x=1\u0026token=[REDACTED]", "cmd": "echo Authorization: Bearer [REDACTED]"}`, got)

	for _, tt := range secretCases {
		t.Run(tt.name, func(t *testing.T) {
			if StripControl(tt.in) != tt.in {
				t.Skip("JSON escapes control characters: nothing left to strip")
			}
			var buf strings.Builder
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // as models write arguments
			require.NoError(t, enc.Encode(map[string]string{"command": tt.in, "note": "after"}))
			got := Redact(buf.String())
			assert.True(t, json.Valid([]byte(got)), "invalid JSON: %s", got)
			assert.Contains(t, got, `"note":"after"`)
			for _, g := range tt.gone {
				ge, _ := json.Marshal(g)
				assert.NotContains(t, got, strings.Trim(string(ge), `"`), "secret survived")
			}
		})
	}
}

func TestRedactLongLinesOfTriggers(t *testing.T) {
	// A trigger word on a line longer than a rule's window, and rule windows
	// that reach the end of the text.
	for _, s := range []string{
		"machine " + strings.Repeat("x", 5000) + "\nlogin a\npassword b",
		"machine h login u password",
		"curl",
		strings.Repeat("curl -u a:b ", 500),
	} {
		out := Redact(s)
		assert.Equal(t, out, Redact(out))
	}
	assert.Equal(t, strings.Repeat("curl -u a:[REDACTED] ", 3), Redact(strings.Repeat("curl -u a:b ", 3)))
}
