package sqlitestore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// fileMode is the mode of a file Open creates: owner-only, since the file
// holds every message of every session it keeps, credentials a tool
// printed included.
const fileMode fs.FileMode = 0o600

// createPrivate creates an empty file at path, readable and writable by its
// owner alone whatever the process's umask, unless something exists there
// already: an existing file keeps the mode its owner gave it. SQLite gives
// the -wal, -shm and -journal files it creates beside the database the
// database file's mode, so they are owner-only too.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, fileMode)
	if errors.Is(err, fs.ErrExist) {
		return nil // the host's file (or another process's, just created): left as it is
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("creating it: %w", pe.Err) // the caller names the path
	}
	if err != nil {
		return err
	}
	// The umask can only have taken bits away; the file is ours, so make
	// its mode exactly fileMode.
	return errors.Join(f.Chmod(fileMode), f.Close())
}
