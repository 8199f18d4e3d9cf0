package main

import (
	"fmt"
	"io"
)

// say writes to w, the standard error a person reads (messages, progress,
// -report): a failure to write there has nowhere else to be reported, so
// it is dropped, here only. What goes to standard output, the command's
// result, is written with its errors checked.
func say(w io.Writer, format string, args ...any) { _, _ = fmt.Fprintf(w, format, args...) }
