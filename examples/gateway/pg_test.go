package main

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// pgDSN returns COMPACT_PG_DSN, skipping the test when it is not set
// unless COMPACT_REQUIRE_PG=1.
func pgDSN(t *testing.T) string {
	dsn := os.Getenv("COMPACT_PG_DSN")
	if dsn == "" {
		if os.Getenv("COMPACT_REQUIRE_PG") == "1" {
			t.Fatal("COMPACT_REQUIRE_PG=1 but COMPACT_PG_DSN is not set")
		}
		t.Skip("no Postgres: set COMPACT_PG_DSN (e.g. eval \"$(.ci/postgres.sh start)\")")
	}
	return dsn
}

// uniquePrefix names agents no earlier run left in a shared database.
func uniquePrefix() string { return fmt.Sprintf("gw%d", time.Now().UnixNano()) }
