package redact_test

import (
	"fmt"

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
