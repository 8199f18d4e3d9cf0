package store_test

import (
	"testing"

	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/session/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) store.Store { return store.NewMemory() })
}
