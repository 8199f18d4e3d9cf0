package handoff

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/contextkit/compact/redact"
)

// ErrUnsafePath reports a packet directory that escapes its root, goes
// through a symbolic link, or is otherwise unsafe to write into, or a
// packet name that is not a plain file name.
var ErrUnsafePath = errors.New("handoff: unsafe path")

// Modes of what Write creates: only the owner may read a packet, since it
// quotes the conversation.
const (
	dirMode  fs.FileMode = 0o700
	fileMode fs.FileMode = 0o600
)

// nameTries bounds the names Write tries when the ones before are taken:
// name, then name-2 up to name-<nameTries>.
const nameTries = 100

// Write writes packet to a new file called name in dir, under root, and
// returns the file's absolute path. It never overwrites: when name is
// taken it tries name-2, name-3 and so on (before the extension).
//
// root is the directory the host allows; it must exist. The host chose it,
// so it may be a symbolic link. Everything below it is reached through an
// [os.Root] opened on it, so no step can leave it, whatever another process
// does meanwhile. dir is relative to root: an absolute dir, a ".." anywhere
// in it, or a symbolic link at any step below root is refused with an
// error wrapping [ErrUnsafePath], and nothing is written. Missing
// directories are created one at a time with mode 0700; each step is
// opened as a root of its own and checked to be the directory just
// examined, so a directory swapped for a link between the check and the
// write is refused too. name must be a plain file name.
//
// The packet goes to a temporary file in the same directory, created with
// O_EXCL and mode 0600, written and synced, then hard-linked to its final
// name (which fails, rather than replaces, if the name exists), and the
// temporary name removed. A reader never sees a partial packet. If only
// that last removal fails, Write returns the packet's path with an error
// saying so, and the caller decides whether to keep the packet.
func Write(root, dir, name string, packet []byte) (path string, err error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	elems, err := dirElems(dir)
	if err != nil {
		return "", err
	}
	base, err := openRoot(root)
	if err != nil {
		return "", err
	}
	target, err := walk(base, elems, dir)
	if err != nil {
		return "", errors.Join(err, closeRoot(base))
	}
	if target != base {
		defer func() { err = errors.Join(err, closeRoot(target)) }()
	}
	defer func() { err = errors.Join(err, closeRoot(base)) }()

	tmp, err := writeTemp(target, name, packet)
	if err != nil {
		return "", err
	}
	at := filepath.Join(append([]string{base.Name()}, elems...)...)
	for i := 1; i <= nameTries; i++ {
		final := numberedName(name, i)
		err := target.Link(tmp, final)
		if err == nil {
			syncDir(target)
			path = filepath.Join(at, final)
			if err := target.Remove(tmp); err != nil {
				return path, fmt.Errorf("handoff: packet written to %s, but its temporary file remains: %w", path, err)
			}
			return path, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", errors.Join(fmt.Errorf("handoff: packet: %w", err), removeTemp(target, tmp))
		}
	}
	return "", errors.Join(fmt.Errorf("handoff: packet: %q and %d numbered names after it are all taken in %s",
		name, nameTries-1, at), removeTemp(target, tmp))
}

// checkName refuses a name that is not one plain path element.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`+"\x00") ||
		filepath.Base(name) != name || filepath.VolumeName(name) != "" {
		return fmt.Errorf("%w: packet name %q is not a plain file name", ErrUnsafePath, name)
	}
	return nil
}

// dirElems splits dir into its elements, refusing an absolute dir or one
// that holds "..".
func dirElems(dir string) ([]string, error) {
	if filepath.IsAbs(dir) || filepath.VolumeName(dir) != "" || strings.HasPrefix(dir, "/") || strings.HasPrefix(dir, `\`) {
		return nil, fmt.Errorf("%w: packet directory %q is absolute; it must be relative to the root", ErrUnsafePath, dir)
	}
	var elems []string
	for _, elem := range strings.FieldsFunc(dir, func(r rune) bool { return r == '/' || r == '\\' }) {
		switch elem {
		case ".":
		case "..":
			return nil, fmt.Errorf("%w: packet directory %q holds \"..\"", ErrUnsafePath, dir)
		default:
			elems = append(elems, elem)
		}
	}
	return elems, nil
}

// openRoot opens root, an existing directory the host chose, with its
// links resolved so that the path Write reports is the real one.
func openRoot(root string) (*os.Root, error) {
	if strings.TrimSpace(root) == "" {
		return nil, fmt.Errorf("%w: no root directory for packets", ErrUnsafePath)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("handoff: root %q: %w", root, err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("handoff: root %q: %w", root, err)
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return nil, fmt.Errorf("handoff: root %q: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%w: root %q is not a directory", ErrUnsafePath, root)
	}
	r, err := os.OpenRoot(resolved)
	if err != nil {
		return nil, fmt.Errorf("handoff: root %q: %w", root, err)
	}
	return r, nil
}

// walk opens elems below base one at a time, creating what is missing and
// refusing a symbolic link or anything not a directory, and returns the
// last as a root of its own (base itself when elems is empty). Each step is
// opened through the one above it, so nothing outside base is ever
// reached, and checked to be the directory Lstat saw, so a swap between the
// check and the open is refused.
func walk(base *os.Root, elems []string, dir string) (*os.Root, error) {
	cur := base
	for _, elem := range elems {
		next, err := step(cur, elem, dir)
		if cur != base {
			err = errors.Join(err, closeRoot(cur))
		}
		if err != nil {
			return nil, errors.Join(err, closeRoot(next))
		}
		cur = next
	}
	return cur, nil
}

// step opens the directory elem inside cur, creating it when missing.
func step(cur *os.Root, elem, dir string) (*os.Root, error) {
	fi, err := cur.Lstat(elem)
	if errors.Is(err, fs.ErrNotExist) {
		if err := cur.Mkdir(elem, dirMode); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("handoff: packet directory: %w", err)
		}
		fi, err = cur.Lstat(elem)
	}
	if err != nil {
		return nil, fmt.Errorf("handoff: packet directory: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%w: packet directory %q: %s is a symbolic link", ErrUnsafePath, dir, elem)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%w: packet directory %q: %s is not a directory", ErrUnsafePath, dir, elem)
	}
	next, err := cur.OpenRoot(elem)
	if err != nil {
		return nil, fmt.Errorf("handoff: packet directory: %w", err)
	}
	opened, err := next.Stat(".")
	if err != nil || !os.SameFile(fi, opened) {
		return next, fmt.Errorf("%w: packet directory %q: %s changed while it was opened", ErrUnsafePath, dir, elem)
	}
	return next, nil
}

// closeRoot closes r, if any.
func closeRoot(r *os.Root) error {
	if r == nil {
		return nil
	}
	if err := r.Close(); err != nil {
		return fmt.Errorf("handoff: %w", err)
	}
	return nil
}

// writeTemp writes packet to a new temporary file in dir and syncs it. The
// file is created with O_EXCL, so an existing file or link there is never
// opened.
func writeTemp(dir *os.Root, name string, packet []byte) (string, error) {
	for tries := 0; ; tries++ {
		var rnd [8]byte
		if _, err := rand.Read(rnd[:]); err != nil {
			return "", fmt.Errorf("handoff: packet: %w", err)
		}
		tmp := "." + name + ".tmp-" + hex.EncodeToString(rnd[:])
		f, err := dir.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, fileMode)
		if errors.Is(err, fs.ErrExist) && tries < 3 {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("handoff: packet: %w", err)
		}
		_, err = f.Write(packet)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", errors.Join(fmt.Errorf("handoff: packet: %w", err), removeTemp(dir, tmp))
		}
		return tmp, nil
	}
}

// removeTemp removes a temporary file Write made.
func removeTemp(dir *os.Root, tmp string) error {
	if err := dir.Remove(tmp); err != nil {
		return fmt.Errorf("handoff: removing the temporary packet: %w", err)
	}
	return nil
}

// syncDir makes a new directory entry durable where the system allows it.
// It is best effort: some systems cannot sync a directory, and the packet
// itself is already synced.
func syncDir(dir *os.Root) {
	if d, err := dir.Open("."); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// numberedName is name for i == 1 and name with "-i" before its extension
// after that.
func numberedName(name string, i int) string {
	if i <= 1 {
		return name
	}
	ext := filepath.Ext(name)
	if ext == name {
		ext = ""
	}
	return strings.TrimSuffix(name, ext) + "-" + strconv.Itoa(i) + ext
}

// FileName is a packet's file name: handoff-<session>-<UTC time>-<n>.md
// (n is the handoff's number, or "manual"),
// the session id cut to a safe character set and length (and left out if
// it holds anything [redact.String] would remove).
func FileName(session string, at time.Time, n string) string {
	if redact.String(session) != session {
		session = ""
	}
	var b strings.Builder
	for _, r := range session {
		if b.Len() == 48 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	id := strings.Trim(b.String(), "_-")
	if id == "" {
		id = "session"
	}
	return "handoff-" + id + "-" + at.UTC().Format("20060102T150405Z") + "-" + n + ".md"
}
