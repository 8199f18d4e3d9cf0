package main

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/contextkit/compact/internal/sharedtest"
)

// pgDSN returns COMPACT_PG_DSN, skipping the test when it is not set
// unless COMPACT_REQUIRE_PG=1.
func pgDSN(t *testing.T) string {
	dsn := os.Getenv("COMPACT_PG_DSN")
	if dsn == "" {
		if os.Getenv("COMPACT_REQUIRE_PG") == "1" {
			t.Fatal("COMPACT_REQUIRE_PG=1 but COMPACT_PG_DSN is not set")
		}
		sharedtest.Skip(t, sharedtest.NoPostgres)
	}
	return dsn
}

// uniquePrefix names agents no earlier run left in a shared database.
func uniquePrefix() string { return fmt.Sprintf("gw%d", time.Now().UnixNano()) }
