package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/contextkit/compact/session/pgstore"
)

// Open connects and migrates; its errors never hold the password.
func ExampleOpen() {
	ctx := context.Background()
	_, err := pgstore.Open(ctx, "postgres://agent:hunter2@127.0.0.1:1/sessions?connect_timeout=2")
	fmt.Println(errors.Is(err, pgstore.ErrConnect), strings.Contains(err.Error(), "hunter2"))

	_, err = pgstore.Open(ctx, "postgres://agent:hunter2@127.0.0.1:port/sessions")
	fmt.Println(err)
	// Output:
	// true false
	// pgstore: invalid DSN: invalid port ":port" after host
}
