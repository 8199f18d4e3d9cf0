package compact

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

// Modes of what WriteHandoffPacket creates: only the owner may read a
// packet, since it quotes the conversation.
const (
	handoffDirMode  fs.FileMode = 0o700
	handoffFileMode fs.FileMode = 0o600
)

// handoffNameTries bounds the names WriteHandoffPacket tries when the ones
// before are taken: name, then name-2 up to name-<handoffNameTries>.
const handoffNameTries = 100

// WriteHandoffPacket writes packet to a new file called name in dir, under
// root, and returns the file's absolute path. It never overwrites: when
// name is taken it tries name-2, name-3 and so on (before the extension).
//
// root is the directory the host allows; it must exist. The host chose it,
// so it is resolved (filepath.Abs and filepath.EvalSymlinks) and trusted
// even if it is a symbolic link. dir is relative to root: an absolute dir,
// a ".." anywhere in it, or a symbolic link at any step below root is
// refused with an error wrapping ErrUnsafePath, and nothing is written.
// Missing directories are created one at a time with mode 0700 (never
// MkdirAll, which would follow links). name must be a plain file name.
//
// The packet goes to a temporary file in the same directory, created with
// O_EXCL and mode 0600, written and synced, then hard-linked to its final
// name (which fails, rather than replaces, if the name exists), and the
// temporary name removed. A reader never sees a partial packet.
//
// The checks walk the path with os.Lstat before writing, so a process that
// can swap a directory for a link under root between the check and the
// write is not defended against: root must not be writable by anyone the
// host does not trust.
func WriteHandoffPacket(root, dir, name string, packet []byte) (string, error) {
	if err := checkPacketName(name); err != nil {
		return "", err
	}
	base, err := resolveRoot(root)
	if err != nil {
		return "", err
	}
	target, err := safeDir(base, dir)
	if err != nil {
		return "", err
	}
	tmp, err := writeTemp(target, name, packet)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp)
	for i := 1; i <= handoffNameTries; i++ {
		final := filepath.Join(target, numberedName(name, i))
		err := os.Link(tmp, final)
		if err == nil {
			syncDir(target)
			return final, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("compact: handoff packet: %w", err)
		}
	}
	return "", fmt.Errorf("compact: handoff packet: %q and %d numbered names after it are all taken in %s",
		name, handoffNameTries-1, target)
}

// checkPacketName refuses a name that is not one plain path element.
func checkPacketName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`+"\x00") ||
		filepath.Base(name) != name || filepath.VolumeName(name) != "" {
		return fmt.Errorf("%w: handoff packet name %q is not a plain file name", ErrUnsafePath, name)
	}
	return nil
}

// resolveRoot returns root as an absolute path with its links resolved. It
// must name an existing directory.
func resolveRoot(root string) (string, error) {
	if strings.TrimSpace(root) == "" {
		return "", fmt.Errorf("%w: no root directory for handoff packets", ErrUnsafePath)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("compact: handoff root %q: %w", root, err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("compact: handoff root %q: %w", root, err)
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return "", fmt.Errorf("compact: handoff root %q: %w", root, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%w: handoff root %q is not a directory", ErrUnsafePath, root)
	}
	return resolved, nil
}

// safeDir walks dir below base one element at a time, refusing what could
// lead outside base, creating what is missing, and returns the directory.
func safeDir(base, dir string) (string, error) {
	if filepath.IsAbs(dir) || filepath.VolumeName(dir) != "" || strings.HasPrefix(dir, "/") || strings.HasPrefix(dir, `\`) {
		return "", fmt.Errorf("%w: handoff directory %q is absolute; it must be relative to the root", ErrUnsafePath, dir)
	}
	var elems []string
	for _, elem := range strings.FieldsFunc(dir, func(r rune) bool { return r == '/' || r == '\\' }) {
		switch elem {
		case ".":
		case "..":
			// Refused before anything is created.
			return "", fmt.Errorf("%w: handoff directory %q holds \"..\"", ErrUnsafePath, dir)
		default:
			elems = append(elems, elem)
		}
	}
	cur := base
	for _, elem := range elems {
		cur = filepath.Join(cur, elem)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.Mkdir(cur, handoffDirMode); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", fmt.Errorf("compact: handoff directory: %w", err)
			}
			fi, err = os.Lstat(cur)
		}
		if err != nil {
			return "", fmt.Errorf("compact: handoff directory: %w", err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%w: handoff directory %q: %s is a symbolic link", ErrUnsafePath, dir, cur)
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("%w: handoff directory %q: %s is not a directory", ErrUnsafePath, dir, cur)
		}
	}
	return cur, nil
}

// writeTemp writes packet to a new temporary file in dir and syncs it. The
// file is created with O_EXCL, so an existing file or link there is never
// opened.
func writeTemp(dir, name string, packet []byte) (string, error) {
	for tries := 0; ; tries++ {
		var rnd [8]byte
		if _, err := rand.Read(rnd[:]); err != nil {
			return "", fmt.Errorf("compact: handoff packet: %w", err)
		}
		tmp := filepath.Join(dir, "."+name+".tmp-"+hex.EncodeToString(rnd[:]))
		f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, handoffFileMode)
		if errors.Is(err, fs.ErrExist) && tries < 3 {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("compact: handoff packet: %w", err)
		}
		_, err = f.Write(packet)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(tmp)
			return "", fmt.Errorf("compact: handoff packet: %w", err)
		}
		return tmp, nil
	}
}

// syncDir makes a new directory entry durable where the system allows it.
// It is best effort: some systems cannot sync a directory, and the packet
// itself is already synced.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
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

// handoffFileName is a packet's file name: handoff-<session>-<UTC time>-<n>.md
// (n is the handoff's number, or "manual"),
// the session id cut to a safe character set and length (and left out if
// it holds anything [redact.String] would remove).
func handoffFileName(session string, at time.Time, n string) string {
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
