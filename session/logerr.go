package session

import (
	"log/slog"

	"github.com/contextkit/compact/redact"
)

// errAttr is an error as a log line carries it: redacted, since an engine's,
// a store's or a recall tool's error can quote the conversation, a query or
// a connection string. The caller still gets the error whole.
func errAttr(err error) slog.Attr { return slog.String("err", redact.String(err.Error())) }
