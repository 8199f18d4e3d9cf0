package redact_test

import (
	"fmt"
	"strings"

	"github.com/contextkit/compact/redact"
)

func ExampleString() {
	out := redact.String(`$ curl -H "Authorization: Bearer 9f8e7d6c5b4a3f2e1d" https://api.example.com/items?page=2
export DB_PASSWORD=hunter2
git remote add origin https://alice:s3cret@git.example.com/repo.git
token_count=17 max_tokens=4096`)
	fmt.Println(out)
	// Output:
	// $ curl -H "Authorization: Bearer [REDACTED]" https://api.example.com/items?page=2
	// export DB_PASSWORD=[REDACTED]
	// git remote add origin https://alice:[REDACTED]@git.example.com/repo.git
	// token_count=17 max_tokens=4096
}

func ExampleStripControl() {
	fmt.Printf("%q\n", redact.StripControl("\x1b[32mPASS\x1b[0m ok\r\n50%\r100%\x07"))
	// Output:
	// "PASS ok\n50%\n100%"
}

func ExampleJSON() {
	args := `{"command": "echo aws_secret_access_key = Zk3+Ab9/Qw7xLm2Np8Rt5Vy1Uc4Ei6Oa0Sd3Fg7H >> ~/.aws/credentials", "env": {"DB_PASSWORD": "correct horse"}, "timeout": 30}`
	fmt.Println(redact.JSON(args))
	// Output:
	// {"command": "echo aws_secret_access_key = [REDACTED] >> ~/.aws/credentials", "env": {"DB_PASSWORD": "[REDACTED]"}, "timeout": 30}
}

func ExampleJSONFunc() {
	// A host with secrets of its own (internal ticket signatures) extends
	// the rules and keeps the JSON valid.
	internal := func(s string) string {
		return strings.ReplaceAll(redact.String(s), "sig-7f3a9c", redact.Marker)
	}
	fmt.Println(redact.JSONFunc(`{"url": "https://t.example/x?s=sig-7f3a9c", "api_key": "k-123456"}`, internal))
	// Output:
	// {"url": "https://t.example/x?s=[REDACTED]", "api_key": "[REDACTED]"}
}
