package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// fifoWait bounds how long a write to a FIFO waits for a process to open
// it for reading, so a FIFO nobody reads cannot hang the command.
const fifoWait = 10 * time.Second

// Every path the command writes goes through writeFiles, which never
// replaces what is not a regular file:
//
//   - a new path or a regular file is written atomically: a temporary file
//     beside it, synced, given the old file's permissions (0644 when new),
//     then renamed over it, so a reader sees the old content or the new;
//   - a symbolic link to a regular file is followed, and the file it
//     resolves to is written atomically in its own directory: the link
//     stays a link. A link whose target the system cannot name by a path
//     (as /proc/self/fd/1 to a deleted file) is written in place;
//   - a device, a FIFO or a socket (or a link to one) is opened and written
//     in place, never created, truncated or renamed over: -o /dev/null
//     discards the output, -o /dev/stdout writes to standard output. A FIFO
//     is opened without blocking and waited on for a reader for at most
//     fifoWait, then refused;
//   - a directory, a link to one, and a link to nothing are refused with an
//     error naming the path.

// destination is where one path the command writes leads.
type destination struct {
	path    string      // the path as given, for messages
	at      string      // the regular file written atomically; "" when written in place
	mode    fs.FileMode // the type of what is written in place
	through *os.File    // what is written in place, once opened
}

// resolve says how path is written.
func resolve(path string) (*destination, error) {
	d := &destination{path: path, at: path}
	li, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return d, nil // a new file
	case err != nil:
		return nil, fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	case li.Mode().IsRegular():
		return d, nil
	case li.IsDir():
		return nil, fmt.Errorf("writing %s: it is a directory", path)
	}
	fi := li
	if li.Mode()&fs.ModeSymlink != 0 {
		if fi, err = os.Stat(path); err != nil {
			link, _ := os.Readlink(path)
			return nil, fmt.Errorf("writing %s: a symbolic link to %s, which cannot be written: %w", path, link, unwrapPath(err))
		}
		if fi.IsDir() {
			return nil, fmt.Errorf("writing %s: a symbolic link to a directory", path)
		}
		if fi.Mode().IsRegular() {
			if real, err := filepath.EvalSymlinks(path); err == nil {
				if ri, err := os.Lstat(real); err == nil && ri.Mode().IsRegular() && os.SameFile(fi, ri) {
					d.at = real
					return d, nil
				}
			}
		}
	}
	d.at, d.mode = "", fi.Mode().Type()
	return d, nil
}

// open opens a destination written in place, waiting at most wait for a
// FIFO's reader. A regular file (behind a link the system resolves itself)
// is truncated; a device or FIFO is not, and nothing is ever created.
func (d *destination) open(wait time.Duration) error {
	flag := os.O_WRONLY
	switch {
	case d.mode.IsRegular():
		flag |= os.O_TRUNC
	case d.mode&fs.ModeNamedPipe != 0:
		// Without O_NONBLOCK opening a FIFO blocks until a reader comes,
		// for ever if none does; with it the open fails (ENXIO) instead,
		// and is retried until wait has passed.
		flag |= syscall.O_NONBLOCK
	}
	deadline := time.Now().Add(wait)
	for {
		f, err := os.OpenFile(d.path, flag, 0)
		if err == nil {
			d.through = f
			return nil
		}
		if errors.Is(err, syscall.ENXIO) && d.mode&fs.ModeNamedPipe != 0 {
			if time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			return fmt.Errorf("writing %s: a FIFO no process opened for reading within %v", d.path, wait)
		}
		return fmt.Errorf("writing %s: %w", d.path, unwrapPath(err))
	}
}

// write writes data to a destination opened in place and closes it.
func (d *destination) write(data []byte) error {
	_, err := d.through.Write(data)
	if cerr := d.through.Close(); err == nil {
		err = cerr
	}
	d.through = nil
	if err != nil {
		return fmt.Errorf("writing %s: %w", d.path, unwrapPath(err))
	}
	return nil
}

// closeQuietly closes a destination opened in place and not written.
func (d *destination) closeQuietly() {
	if d.through != nil {
		_ = d.through.Close()
		d.through = nil
	}
}

// unwrapPath drops the path an *fs.PathError adds, when the message
// already names the path the user gave (a temporary name or a link's
// target means nothing to the user).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// pendingFile is a file written under a temporary name beside its
// destination, waiting to be renamed into place.
type pendingFile struct {
	tmp, dst, name string // name: the path the user gave, for messages
}

// stage writes data to a temporary file in dst's directory. Nothing at dst
// changes until commit. name is the path the user gave.
func stage(dst, name string, data []byte) (*pendingFile, error) {
	f, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", name, unwrapPath(err))
	}
	p := &pendingFile{tmp: f.Name(), dst: dst, name: name}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(p.tmp, fileMode(dst))
	}
	if err != nil {
		p.discard()
		return nil, fmt.Errorf("writing %s: %w", name, unwrapPath(err))
	}
	return p, nil
}

// fileMode keeps an existing destination's permissions; a new file gets
// 0644 (CreateTemp's 0600 would hide a result from the user's tools).
func fileMode(dst string) fs.FileMode {
	if fi, err := os.Lstat(dst); err == nil && fi.Mode().IsRegular() {
		return fi.Mode().Perm()
	}
	return 0o644
}

func (p *pendingFile) commit() error {
	if err := os.Rename(p.tmp, p.dst); err != nil {
		p.discard()
		return fmt.Errorf("writing %s: %w", p.name, unwrapPath(err))
	}
	return nil
}

func (p *pendingFile) discard() { _ = os.Remove(p.tmp) }

// writeFiles writes every file or none, as the comment at the top of this
// file says. Every destination is resolved, every regular file staged and
// every other one opened before anything is written; then the devices and
// FIFOs are written, and last the staged files are renamed into place.
// What it cannot undo: a device or FIFO written before another failed (its
// reader has the data), and a rename failing after another succeeded (a
// disk vanishing between two renames in one directory).
func writeFiles(files map[string][]byte) error { return writeFilesWaiting(files, fifoWait) }

// writeFilesWaiting is writeFiles with a FIFO's wait for a reader.
func writeFilesWaiting(files map[string][]byte, wait time.Duration) (err error) {
	var staged []*pendingFile
	var through []*destination
	defer func() {
		if err != nil {
			for _, p := range staged {
				p.discard()
			}
			for _, d := range through {
				d.closeQuietly()
			}
		}
	}()
	for path, data := range files {
		d, err := resolve(path)
		if err != nil {
			return err
		}
		if d.at == "" {
			if err := d.open(wait); err != nil {
				return err
			}
			through = append(through, d)
			continue
		}
		p, err := stage(d.at, path, data)
		if err != nil {
			return err
		}
		staged = append(staged, p)
	}
	for _, d := range through {
		if err := d.write(files[d.path]); err != nil {
			return err
		}
	}
	var errs []error
	for _, p := range staged {
		if err := p.commit(); err != nil {
			errs = append(errs, err)
		}
	}
	staged = nil // committed or discarded each
	return errors.Join(errs...)
}
