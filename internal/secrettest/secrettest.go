// Package secrettest holds the secret corpus the redaction tests of every
// package share: fake credentials with the shapes of real ones (none of them
// works), secrets in the forms they take in tool output, look-alikes that
// must be left alone, and makers that build a secret of each shape from fuzz
// bytes.
package secrettest

import "strings"

// The byte classes the makers draw from.
const (
	upperChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lowerChars = "abcdefghijklmnopqrstuvwxyz"
	digitChars = "0123456789"
	alnumChars = upperChars + lowerChars + digitChars
)

// Fake credentials with the shapes of real ones. None of them works.
const (
	FakeOpenAIProj = "sk-proj-PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA-2O76UMFx"
	FakeOpenAI     = "sk-SXpfKtHF4vUCsMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8"
	FakeHexKey     = "sk-8f219e9cb0eb53f16947ccf25ec84d8d"
	FakeAnthropic  = "sk-ant-api03-TWDtkwtDDb_xHKas1VOqg6YYZYn9ZhyiA4uoRgnatmUdjAWtGSU8po_799NksnRH9ucAUsdMlHUvTCQC"
	FakeGitHub     = "ghp_NZYW2mZp0zVZomHFwUbbYrEqmSM9wCZ7Uw9x"
	FakeGitHubPAT  = "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"
	FakeAWSID      = "AKIAIOSFODNN7EXAMPLE"
	FakeAWSSecret  = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	FakeSlack      = "xoxb-1234567890-1234567890123-rcXgGCJbW56eCuNGMGmSrCGI"
	FakeHF         = "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"
	FakeGoogle     = "AIzar7CmY_uCu3ZR1zTOlUcR64cXQLioDnkHIfx"
	FakeStripe     = "sk_live_rWi0B26R08qzjI6GKFSufrdZ"
	FakeGitLab     = "glpat-L5wIScGebcy8F5n3-YNB"
	FakeNpm        = "npm_ovm14TUOizwd1iaeOV4qBkdfQ1y3GQsMpSsc"
	FakeSendGrid   = "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"
	FakeTwilio     = "SK22f828767efc2f91624a8940f1f836f9"
	FakeJWT        = "eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.eyJzdWIiOiAiMTIzNDU2Nzg5MCIsICJuYW1lIjogIkpvaG4ifQ.K777pzNk8cL6j5IXAAjlsHUqJoUD-_Ydua_5ZMs1SWO"
	FakeKeyBody    = "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\naIvnMZ2bqr3cF9AyUIaZkUwcQyMJBZr9SHh0Cv3MmDrbB0Y0aDfW1dYFbYo2ZsNS\nCnUKa8/Sfl0gH4JOD0NRwmxDfmlwDrFdNGn8XeBJwX5ZMUcqBy1lZ/9IR9ivA0Pm"
)

// Case is a secret in one of the forms it takes. Redaction must remove every
// string in Gone and keep every string in Kept.
type Case struct {
	Name string
	In   string
	Gone []string
	Kept []string
}

// LookAlike is text that resembles a secret and is not one.
type LookAlike struct{ Name, In string }

// Cases are secrets in the forms they take in tool output, code and
// configuration. Each must lose every string in gone and keep every string
// in kept: the kind of secret stays readable, only the secret goes.
var Cases = []Case{
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
	{"export", "export AWS_SECRET_ACCESS_KEY=" + FakeAWSSecret + "\nexport AWS_REGION=us-east-1", []string{FakeAWSSecret}, []string{"export AWS_SECRET_ACCESS_KEY=", "export AWS_REGION=us-east-1"}},
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
	{"OpenAI project key", "key: " + FakeOpenAIProj + " (project)", []string{FakeOpenAIProj[8:]}, []string{"sk-proj-", " (project)"}},
	{"OpenAI legacy key", "using " + FakeOpenAI + " now", []string{FakeOpenAI[3:]}, []string{"using sk-", " now"}},
	{"hex key of an OpenAI-compatible provider", "deepseek " + FakeHexKey, []string{FakeHexKey[3:]}, []string{"deepseek sk-"}},
	{"Anthropic key", "ANTHROPIC says " + FakeAnthropic + ".", []string{FakeAnthropic[7:]}, []string{"ANTHROPIC says ", "."}},
	{"GitHub token", "remote: " + FakeGitHub, []string{FakeGitHub[4:]}, []string{"remote: ghp_"}},
	{"GitHub fine-grained token", "token " + FakeGitHubPAT, []string{FakeGitHubPAT[11:], "uqIA1id6Vw5DQL05"}, []string{"github_pat_"}},
	{"AWS key pair in a credentials CSV", "User,Access key ID,Secret access key\nci," + FakeAWSID + "," + FakeAWSSecret + "\n", []string{"IOSFODNN7EXAMPLE", FakeAWSSecret}, []string{"User,Access key ID,Secret access key\nci,AKIA"}},
	{"AWS temporary key id", "assumed role with ASIAY34FZKBOKMUTVV7A ok", []string{"Y34FZKBOKMUTVV7A"}, []string{"with ASIA", " ok"}},
	{"Slack bot token", "SLACK " + FakeSlack, []string{FakeSlack[5:]}, []string{"SLACK xoxb-"}},
	{"Slack webhook", "post to https://hooks.slack.com/services/T0000000/B0000000/XXXXXXXXXXXXXXXXXXXXXXXX now", []string{"T0000000/B0000000/XXXX"}, []string{"https://hooks.slack.com/services/", " now"}},
	{"Discord webhook", "https://discord.com/api/webhooks/123456789012345678/AbCdEf-GhIjKl_MnOp", []string{"AbCdEf-GhIjKl_MnOp"}, []string{"https://discord.com/api/webhooks/"}},
	{"Hugging Face token", "login " + FakeHF, []string{FakeHF[3:]}, []string{"login hf_"}},
	{"Google API key", "maps " + FakeGoogle, []string{FakeGoogle[4:]}, []string{"maps AIza"}},
	{"Google OAuth client secret", "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", []string{"5Q52ryFlwRlOEVHzc0X0AWIRh-JU"}, []string{"GOCSPX-"}},
	{"Stripe secret key", "stripe.api_key = '" + FakeStripe + "'", []string{FakeStripe[8:]}, []string{"stripe.api_key = '"}},
	{"Stripe restricted and live publishable keys", "rk_live_SlB5er8bOfZqfM2oeq3hDavJ pk_live_A76rNicHTp8hkqdlm7tOtHWn", []string{"SlB5er8bOfZqfM2oeq3hDavJ", "A76rNicHTp8hkqdlm7tOtHWn"}, []string{"rk_live_", "pk_live_"}},
	{"GitLab token", "git push https://oauth2:" + FakeGitLab + "@gitlab.com/g/p.git", []string{FakeGitLab[6:]}, []string{"https://oauth2:", "@gitlab.com/g/p.git"}},
	{"npm token", "//registry.npmjs.org/:_authToken=" + FakeNpm, []string{FakeNpm[4:]}, []string{"//registry.npmjs.org/:_authToken="}},
	{"SendGrid key", "SENDGRID " + FakeSendGrid, []string{FakeSendGrid[3:]}, []string{"SENDGRID "}},
	{"Twilio API key", "twilio " + FakeTwilio, []string{FakeTwilio[2:]}, []string{"twilio SK"}},
	{"JWT", "id_token_hint " + FakeJWT + " expired", []string{FakeJWT, "K777pzNk8cL6j5IX"}, []string{"id_token_hint ", " expired"}},
	{"bare bearer token", "retrying with Bearer 9a8b7c6d5e4f3a2b1c", []string{"9a8b7c6d5e4f3a2b1c"}, []string{"retrying with Bearer "}},

	// Issue 17: shapes that passed, and secrets inside JSON-quoted commands.
	{"Docker Hub token", "docker login -u ci --password-stdin <<< dckr_pat_8yenbnN3G_2tTjkY_zbx_lRT2bF", []string{"8yenbnN3G_2tTjkY_zbx_lRT2bF"}, []string{"docker login -u ci --password-stdin <<< dckr_pat_"}},
	{"Sentry DSN", `SENTRY_DSN=https://25815225e34e793bb9cf4e091f612dcd@o4506123.ingest.sentry.io/4507456`, []string{"25815225e34e793bb9cf4e091f612dcd"}, []string{"SENTRY_DSN=https://", "@o4506123.ingest.sentry.io/4507456"}},
	{"Telegram bot token", "curl https://api.telegram.org/bot7384096921:AAEu3tuXBk1A2b7MqcH5uaqpfEdFEifgOgq/getMe", []string{"AAEu3tuXBk1A2b7MqcH5uaqpfEdFEifgOgq", "7384096921:AA"}, []string{"curl https://api.telegram.org/bot", "/getMe"}},
	{"age secret key", "# created: 2024-01-01\nAGE-SECRET-KEY-18PH0WAG2VLZJW2A778NLWPWUY7QUCJQJFL5M7L858AMZETY4ZCFGRTKC76\n", []string{"AGE-SECRET-KEY-1", "8PH0WAG2VLZJW2A778NLWPWUY7"}, []string{"# created: 2024-01-01\n"}},
	{"Databricks token", "databricks configure --host https://dbc.cloud.databricks.com dapic335e138cd2950c584ed55a56168f9a5", []string{"c335e138cd2950c584ed55a56168f9a5"}, []string{"--host https://dbc.cloud.databricks.com dapi"}},
	{"spaced assignment in a JSON command", `{"command": "echo aws_secret_access_key = Zk3+Ab9/Qw7xLm2Np8Rt5Vy1Uc4Ei6Oa0Sd3Fg7H"}`, []string{"Zk3+Ab9/Qw7xLm2Np8Rt5Vy1Uc4Ei6Oa0Sd3Fg7H"}, []string{`{"command": "echo aws_secret_access_key = `, `"}`}},
	{"spaced assignment before a redirection", "echo aws_secret_access_key = Zk3+Ab9/Qw7xLm2Np8Rt5Vy1Uc4Ei6Oa0Sd3Fg7H >> ~/.aws/credentials", []string{"Zk3+Ab9/Qw7xLm2Np8Rt5Vy1Uc4Ei6Oa0Sd3Fg7H"}, []string{"echo aws_secret_access_key = ", " >> ~/.aws/credentials"}},
	{"name-value record", `{"name": "DB_PASSWORD", "value": "kzvMpU8dXs2ZZ5mUNQqZLHVq"}`, []string{"kzvMpU8dXs2ZZ5mUNQqZLHVq"}, []string{`{"name": "DB_PASSWORD", "value": "`}},
	{"Go MySQL DSN", `dsn := "app:FAsrPpx4LiIY5GCt@tcp(db:3306)/shop"`, []string{"FAsrPpx4LiIY5GCt"}, []string{`dsn := "app:`, `@tcp(db:3306)/shop"`}},
	{"token as a URL user", "git clone https://bNxBBEjjsEYUCF8uxzRzskQe@git.example.com/team/repo.git", []string{"bNxBBEjjsEYUCF8uxzRzskQe"}, []string{"git clone https://", "@git.example.com/team/repo.git"}},
	{"Mailchimp key", "MC 744b806bd28a2dbb76a4fd115d112ad5-us21 ok", []string{"744b806bd28a2dbb76a4fd115d112ad5"}, []string{"MC ", " ok"}},

	// Issue 23: flag values of the commands that take credentials, a
	// Telegram bot token in its URL, Terraform variables, JSON inside a log
	// line, files written on one line.
	{"docker login -p", "docker login -u ci -p Dck3rPw9 registry.io", []string{"Dck3rPw9"}, []string{"docker login -u ci -p ", " registry.io"}},
	{"mysql -p then the password", "mysql -u root -p S3cretPw mydb", []string{"S3cretPw"}, []string{"mysql -u root -p ", " mydb"}},
	{"redis-cli -a", "redis-cli -p 6379 -a R3disPw1 ping", []string{"R3disPw1"}, []string{"redis-cli -p 6379 -a ", " ping"}},
	{"keytool -storepass", "keytool -list -keystore k.jks -storepass Ch4ngeIt9 -v", []string{"Ch4ngeIt9"}, []string{"-keystore k.jks -storepass ", " -v"}},
	{"openssl pass phrase", "openssl rsa -in k.pem -passin pass:Ph4se99x -out k2.pem", []string{"Ph4se99x"}, []string{"-passin pass:", " -out k2.pem"}},
	{"plink -pw", "plink -ssh ops@host -pw Pl1nkPw77 uptime", []string{"Pl1nkPw77"}, []string{"-pw ", " uptime"}},
	{"secret flag in a JSON argument list", `{"args": ["--api-key", "k3yV4lue99", "--region", "eu"]}`, []string{"k3yV4lue99"}, []string{`"--api-key", "`, `"--region", "eu"`}},
	{"argument list of a credential command", `{"cmd": ["mysql", "-uroot", "-pArgvPw123", "shop"]}`, []string{"ArgvPw123"}, []string{`"-uroot", "-p`, `"shop"`}},
	{"Telegram bot token in its API URL", "https://api.telegram.org/bot110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getUpdates", []string{"AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", "110201543:"}, []string{"https://api.telegram.org/bot", "/getUpdates"}},
	{"Terraform variable in the environment", "TF_VAR_db_password=Tf_pw-123 terraform plan", []string{"Tf_pw-123"}, []string{"TF_VAR_db_password=", " terraform plan"}},
	{"Terraform variable default", "variable \"db_password\" {\n  type    = string\n  default = \"Tf_default_9\"\n}", []string{"Tf_default_9"}, []string{"variable \"db_password\" {\n  type    = string\n  default = \""}},
	{"terraform output -json", `{"api_token": {"sensitive": true, "value": "TfOut_tok_42"}}`, []string{"TfOut_tok_42"}, []string{`{"api_token": {"sensitive": true, "value": "`}},
	{"Basic auth in a logged JSON header", `GET /x {"Authorization":["Basic dXNlcjpwYXNzd29yZA=="]}`, []string{"dXNlcjpwYXNzd29yZA=="}, []string{`GET /x {"Authorization":["Basic `}},
	{"cookie in a logged JSON header", `resp {"Cookie":["sid=C00kieVal9; theme=dark"]}`, []string{"C00kieVal9"}, []string{`resp {"Cookie":["sid=`}},
	{"SAS URL with escaped separators in a log line", `PUT {"url":"https://a.blob.core.windows.net/c/b?sv=2022-11-02\u0026sig=Zm9vYmFyYmF6cXV4%2B\u0026se=2030"}`, []string{"Zm9vYmFyYmF6cXV4"}, []string{"sv=2022-11-02", "sig=", "se=2030"}},
	{".netrc entry on one line", "machine api.heroku.com ⏎ login me@example.com ⏎ password 01234567-89ab-cdef", []string{"01234567-89ab-cdef"}, []string{"machine api.heroku.com ⏎ login me@example.com ⏎ password "}},
	{"AWS credentials on one line", "[default] ⏎ aws_secret_access_key = " + FakeAWSSecret + " ⏎ region = us-east-1", []string{FakeAWSSecret}, []string{"[default] ⏎ aws_secret_access_key = ", " ⏎ region = us-east-1"}},
	{"private key cut off, on one line", "- -----BEGIN RSA PRIVATE KEY----- ⏎ " + strings.ReplaceAll(FakeKeyBody, "\n", " ⏎ ") + " ⏎ ...", []string{"MIIEowIBAAKCAQEA", "ZMUcqBy1lZ"}, []string{"- -----BEGIN RSA PRIVATE KEY-----", " ⏎ ..."}},

	// Found by the report test of issue 23: a DSN before a URL with a
	// password, a key whose head a cut took away.
	{"Go DSN before a URL with a password", `db := "app:Dsn9Pw0rd@tcp(db:3306)/shop"` + "\nconnecting to redis://:R3dis9Pw@cache:6379/0", []string{"Dsn9Pw0rd", "R3dis9Pw"}, []string{`db := "app:`, "@tcp(db:3306)/shop", "redis://:", "@cache:6379/0"}},
	{"private key whose head was cut", "$ cat id_rsa\n[... 2216 characters cut ...]\n" + FakeKeyBody + "\nAAAAmL7v\n-----END RSA PRIVATE KEY-----\n$ ls", []string{"MIIEowIBAAKCAQEA", "ZMUcqBy1lZ", "AAAAmL7v"}, []string{"$ cat id_rsa\n[... 2216 characters cut ...]\n", "-----END RSA PRIVATE KEY-----\n$ ls"}},

	// Private keys
	{"RSA private key", "key:\n-----BEGIN RSA PRIVATE KEY-----\n" + FakeKeyBody + "\n-----END RSA PRIVATE KEY-----\ndone", []string{"MIIEowIBAAKCAQEA", "ygWyF8PbnGy0AHB7", "ZMUcqBy1lZ"}, []string{"key:\n-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----\ndone"}},
	{"OpenSSH private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----", []string{"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUA"}, []string{"-----BEGIN OPENSSH PRIVATE KEY-----", "-----END OPENSSH PRIVATE KEY-----"}},
	{"EC private key", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49\n-----END EC PRIVATE KEY-----", []string{"MHcCAQEEIIrYSSNQFaA2Hwf1"}, []string{"-----BEGIN EC PRIVATE KEY-----"}},
	{"encrypted PKCS#8 key", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI\n-----END ENCRYPTED PRIVATE KEY-----", []string{"MIIFHDBOBgkqhkiG9w0BBQ0w"}, []string{"-----BEGIN ENCRYPTED PRIVATE KEY-----"}},
	{"PGP private key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF0p9bgBCADQ3g5Mfp8wLj6Fy2k2pY7vGzYx\n=a1b2\n-----END PGP PRIVATE KEY BLOCK-----", []string{"lQOYBF0p9bgBCADQ3g5Mfp8w", "GnuPG v2"}, []string{"-----BEGIN PGP PRIVATE KEY BLOCK-----", "-----END PGP PRIVATE KEY BLOCK-----"}},
	{"private key in a JSON service account", `{"private_key_id": "abc", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n", "client_email": "x@p.iam.gserviceaccount.com"}`, []string{"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"}, []string{`"client_email": "x@p.iam.gserviceaccount.com"`, `"private_key_id": "abc"`}},
	{"private key cut off by truncation", "$ cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n" + FakeKeyBody + "\n... (output truncated)\n$ ls", []string{"MIIEowIBAAKCAQEA", "ZMUcqBy1lZ"}, []string{"$ cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----", "... (output truncated)\n$ ls"}},
}

// LookAlikes resemble secrets and are not: String returns them unchanged.
var LookAlikes = []LookAlike{
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

	// Hashes, ids and encoded data: random to the eye, never secret.
	{"git log", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nMerge: 1c002dd 35cfb2b\ntree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent 5d1c3e0f6a3b8e2f9c7d1a4b6e8f0a2c4e6b8d0f"},
	{"UUIDs in JSON", `{"id": "f47ac10b-58cc-4372-a567-0e02b2c3d479", "request_id": "9b2f4c1e-3d5a-4e7b-8c9d-0a1b2c3d4e5f", "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736"}`},
	{"paths", "cat ~/.aws/credentials.example /var/run/secrets/kubernetes.io/serviceaccount/token src/auth/token_store.go C:\\Users\\ci\\secrets\\README.md --token-file /etc/app/token"},
	{"npm lockfile", `"node_modules/lodash": {"version": "4.17.21", "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz", "integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg=="}`},
	{"yarn and pnpm lockfiles", "lodash@^4.17.21:\n  version \"4.17.21\"\n  integrity sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg==\nresolution: {integrity: sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg==}"},
	{"go.sum", "github.com/stretchr/testify v1.9.0 h1:HtqpIVDClZ4nwg75+xbYdKU9yPwnXGiX/mbi3fIQ8HY=\ngithub.com/stretchr/testify v1.9.0/go.mod h1:r2ic/lqez/lEtzL7wO/rwa5dbSLXVDPFyf8C91i36aY="},
	{"Python hashes", "requests==2.32.3 --hash=sha256:70761cfe03c773ceb22aa2f671b4757976145175cdfca038c02654d061d6dcc6\n{file = \"requests-2.32.3.tar.gz\", hash = \"sha256:55365417734eb18255590a9ff9eb97e9e1da868d4ccd6402399eaf68af20a760\"}"},
	{"Cargo.lock", "[[package]]\nname = \"serde\"\nversion = \"1.0.210\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"c8e3592472072e6e22e0a54d5904d9febf8508f65fb8552499a1abc7d1078c3a\""},
	{"subresource integrity", `<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js" integrity="sha384-YvpcrYf0tY3lHB60NNkmXc5s9fDVZLESaAA55NDzOxhy9GkcIdslK1eN7N6jIeHz" crossorigin="anonymous"></script>`},
	{"image digests", "docker pull nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31\nDigest: sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31"},
	{"checksums", "d41d8cd98f00b204e9800998ecf8427e  empty.txt\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.bin\nETag: \"33a64df551425fcc55e4d42a148795d9f25f89d4\""},
	{"ssh and gpg fingerprints", "ED25519 key fingerprint is SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8.\ngpg: using RSA key 4AEE18F83AFDEB23\nFingerprint: 5F1A 2C3B 4D5E 6F70 8192  A3B4 C5D6 E7F8 0912 3A4B"},
	{"base64 test fixtures", `want := "SGVsbG8sIHdvcmxkISBUaGlzIGlzIGEgdGVzdCBmaXh0dXJlIGZvciB0aGUgZGVjb2Rlci4="` + "\n" + `blob := "/EAAAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEB+AKCpAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"`},
	{"cloud ids", "arn:aws:iam::123456789012:role/deploy AIDAJQABLZS4A3QDU576Q i-0abcd1234efgh5678 projects/my-proj/secrets/db-password/versions/3"},
	{"Kubernetes secret references", "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-credentials\n        key: password\nsecretName: tls-cert"},
	{"URL users", "ssh://deploy@10.0.0.1:22/srv https://user@example.com/login ftp://anonymous@ftp.example.com/pub mailto:ops@example.com"},
	{"times, versions and addresses", "2024-05-15T15:00:00Z build 1712345678:OK v1.2.3-rc.1+build.5 fe80::1ff:fe23:4567:890a 00:1B:44:11:3A:B7 0x7ffe5c3d2a10"},
	{"token prose in strings", `{"text": "the token = the unit a model reads", "doc": "set password = something long"}`},
	{"code with shell-like operators", "token = cached || fresh\nsecret = left | right\npassword = input > limit"},
	{"words that start like keys", "dapi is not a word; pat. on the back; sat. morning; EAAA scores; ops_eyJ? r8_ fw_ key-value store"},

	// Issue 23: flags and files that look like credentials and are not.
	{"one-letter flags that take no secret", "docker run -p 8080:80 nginx && ssh -p 2222 host && mkdir -p out && cp -p a b && git add -p && redis-cli -p 6379 ping"},
	{"credential commands given none", "mysql -u root -p -e 'show databases'\ndocker login --password-stdin registry.io\nmysql --password < creds.txt\ndocker login registry.io && docker run -p 8080:80 app"},
	{"pass phrase sources", "openssl rsa -passin env:KEY_PW -passout file:pw.txt -in k.pem; openssl req -new -passin stdin"},
	{"Terraform that holds no secret", "variable \"region\" {\n  default = \"eu-west-1\"\n}\nTF_VAR_region=eu-west-1\noutput \"db_password\" {\n  value     = aws_db_instance.main.password\n  sensitive = true\n}"},
	{"logged JSON with escaped separators", `GET {"url":"https:\/\/example.com\/search?q=go\u0026page=2","status":200,"headers":{"Accept":["*/*"]}}`},
	{"lines joined on one line", "step one ⏎ the password reset email was sent ⏎ token_count: 17 ⏎ max_tokens=4096"},
	{"a key's END line in prose", "A PEM file ends with\n-----END RSA PRIVATE KEY-----\nafter its last line of base64."},
}

// Maker builds a secret of one shape from fuzz bytes. It returns the
// whole secret and the part of it that must not survive redaction.
type Maker func(seed []byte) (secret, core string)

// Fill spells n characters of alphabet from seed, starting with lead (which
// makes the body look random the way real keys do: mixed case and digits).
func Fill(seed []byte, alphabet, lead string, n int) string {
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

func prefixed(prefix, alphabet, lead string, n int) Maker {
	return func(seed []byte) (string, string) {
		body := Fill(seed, alphabet, lead, n)
		return prefix + body, body
	}
}

var Makers = []Maker{
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
		body := Fill(seed, fuzzB64url, "", 22) + "." + Fill(seed, fuzzB64url, "x", 43)
		return "SG." + body, body
	},
	func(seed []byte) (string, string) {
		sig := Fill(seed, fuzzB64url, "", 43)
		jwt := "eyJhbGciOiJIUzI1NiJ9." + "eyJ" + Fill(seed, fuzzB64url, "", 30) + "." + sig
		return jwt, sig
	},
	func(seed []byte) (string, string) {
		body := Fill(seed, alnumChars+"+/", "MII", 64)
		return "-----BEGIN RSA PRIVATE KEY-----\n" + body + "\n-----END RSA PRIVATE KEY-----", body
	},
	func(seed []byte) (string, string) {
		pw := Fill(seed, fuzzAlnum+"!%^*_-", "P", 16)
		return "https://deploy:" + pw + "@example.com/repo.git", pw
	},
	func(seed []byte) (string, string) {
		tok := Fill(seed, fuzzAlnum+"._-", "t0", 24)
		return "Authorization: Bearer " + tok, tok
	},
	func(seed []byte) (string, string) {
		pw := Fill(seed, fuzzAlnum+"!@#%^*", "p", 16)
		return "DB_PASSWORD=" + pw, pw
	},
	func(seed []byte) (string, string) {
		pw := Fill(seed, fuzzAlnum, "q", 16)
		return `{"client_secret": "` + pw + `"}`, pw
	},
	// The classes issue 17 added: more prefixes, infixes, URLs and DSNs,
	// spaced assignments, name-value records.
	prefixed("dckr_pat_", fuzzB64url, "", 27),
	prefixed("dapi", fuzzHex, "a1", 32),
	prefixed("gsk_", fuzzAlnum, "Aa1", 52),
	prefixed("hvs.", fuzzB64url, "", 90),
	prefixed("glsa_", fuzzAlnum, "", 40),
	func(seed []byte) (string, string) {
		tok := "7" + Fill(seed, digitChars, "", 9) + ":AA" + Fill(seed, fuzzB64url, "", 33)
		return tok, tok
	},
	func(seed []byte) (string, string) {
		key := "AGE-SECRET-KEY-1" + Fill(seed, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", "", 58)
		return key, key
	},
	func(seed []byte) (string, string) {
		key := Fill(seed, fuzzHex, "a1", 32)
		return "https://" + key + "@o4506123.ingest.sentry.io/4507456", key
	},
	func(seed []byte) (string, string) {
		key := Fill(seed, fuzzHex, "b2", 32) + "-us21"
		return key, key
	},
	func(seed []byte) (string, string) {
		pw := Fill(seed, fuzzAlnum, "m", 16)
		return "app:" + pw + "@tcp(db:3306)/shop", pw
	},
	func(seed []byte) (string, string) {
		pw := Fill(seed, fuzzAlnum, "r", 20)
		return "amqp://worker:" + pw + "@rabbit:5672/", pw
	},
	func(seed []byte) (string, string) {
		key := Fill(seed, alnumChars+"+/", "Zk3", 40)
		return "aws_secret_access_key = " + key, key
	},
	func(seed []byte) (string, string) {
		key := Fill(seed, fuzzAlnum, "s", 32)
		return "secretKey: " + key, key
	},
	func(seed []byte) (string, string) {
		v := Fill(seed, fuzzAlnum, "v", 24)
		return `{"name": "STRIPE_API_KEY", "value": "` + v + `"}`, v
	},
	// The classes issue 23 added: flag values of credential commands, a
	// Telegram token in its URL, Terraform variables, JSON in a log line,
	// a file on one line.
	func(seed []byte) (string, string) {
		pw := Fill(seed, fuzzAlnum, "d", 18)
		return "docker login -u ci -p " + pw + " registry.io", pw
	},
	func(seed []byte) (string, string) {
		pw := Fill(seed, fuzzAlnum, "m", 16)
		return "mysqldump -uroot -p" + pw + " shop", pw
	},
	func(seed []byte) (string, string) {
		tok := Fill(seed, digitChars, "1", 9) + ":AA" + Fill(seed, fuzzB64url, "", 32)
		return "https://api.telegram.org/bot" + tok + "/sendMessage", tok
	},
	func(seed []byte) (string, string) {
		pw := Fill(seed, fuzzAlnum, "t", 20)
		return "TF_VAR_db_password=" + pw + " terraform apply", pw
	},
	func(seed []byte) (string, string) {
		sig := Fill(seed, fuzzAlnum, "s", 24)
		return `upload {"url":"https:\/\/a.blob.core.windows.net\/c?sv=2022\u0026sig=` + sig + `\u0026se=2030"}`, sig
	},
	func(seed []byte) (string, string) {
		pw := Fill(seed, fuzzAlnum, "n", 20)
		return "machine api.example.com ⏎ login ci ⏎ password " + pw, pw
	},
}
