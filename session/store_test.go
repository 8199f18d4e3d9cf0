package session_test

import (
	"testing"

	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) session.Store { return session.NewMemoryStore() })
}
