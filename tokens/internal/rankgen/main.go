// Command rankgen writes the token rank tables package tokens embeds
// (tokens/internal/bpe/ranks/o200k_base.bin and cl100k_base.bin) from the
// .tiktoken files that github.com/pkoukk/tiktoken-go-loader carries, after
// checking each file's SHA-256 against the checksum openai/tiktoken pins
// for it.
//
// Run it through go generate in the repository's root:
//
//	go generate ./tokens/...
//
// It finds the loader in the module cache with `go list -m`, so it needs
// the module downloaded (go mod download) but never the network itself.
//
// A table is the tokens of one encoding in rank order, in a form the
// package reads without parsing text:
//
//	magic   8 bytes, "ckranks1"
//	count   uint32, little-endian: the number of tokens n
//	lengths n bytes: the length of each token, 1 to 255
//	tokens  the tokens' bytes, concatenated in rank order
//
// Rank i is the i-th token; the .tiktoken files list every rank from 0 to
// n-1 once, in order, which rankgen checks.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// loaderModule is the module whose embedded .tiktoken files rankgen reads.
const loaderModule = "github.com/pkoukk/tiktoken-go-loader"

// magic opens every table; the package rejects a table without it.
const magic = "ckranks1"

// encodings are the tables rankgen writes, with the SHA-256 of each source
// file as openai/tiktoken pins it (tiktoken_ext/openai_public.py,
// expected_hash).
var encodings = []struct{ name, sha256 string }{
	{"o200k_base", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"},
	{"cl100k_base", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"},
}

func main() {
	out := flag.String("out", "ranks", "directory to write the tables to")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "rankgen:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	dir, err := moduleDir(loaderModule)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, enc := range encodings {
		src, err := os.ReadFile(filepath.Join(dir, "assets", enc.name+".tiktoken"))
		if err != nil {
			return err
		}
		if sum := sha256.Sum256(src); hex.EncodeToString(sum[:]) != enc.sha256 {
			return fmt.Errorf("%s.tiktoken: SHA-256 %x, want %s", enc.name, sum, enc.sha256)
		}
		table, n, err := encode(src)
		if err != nil {
			return fmt.Errorf("%s.tiktoken: %w", enc.name, err)
		}
		path := filepath.Join(out, enc.name+".bin")
		if err := os.WriteFile(path, table, 0o644); err != nil {
			return err
		}
		fmt.Printf("rankgen: %s: %d tokens, %d bytes\n", path, n, len(table))
	}
	return nil
}

// moduleDir returns where the go command keeps module path.
func moduleDir(path string) (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", path)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %w", path, err)
	}
	dir := strings.TrimSpace(string(b))
	if dir == "" {
		return "", fmt.Errorf("%s is not in the module cache: run go mod download", path)
	}
	return dir, nil
}

// encode turns a .tiktoken file (lines of a base64 token, a space and its
// rank) into a table, and returns it with its number of tokens.
func encode(src []byte) ([]byte, int, error) {
	var lengths, tokens []byte
	seen := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSuffix(string(src), "\n"), "\n") {
		b64, rankText, ok := strings.Cut(line, " ")
		if !ok {
			return nil, 0, fmt.Errorf("line %d: no rank", i+1)
		}
		token, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, 0, fmt.Errorf("line %d: %w", i+1, err)
		}
		rank, err := strconv.Atoi(rankText)
		if err != nil {
			return nil, 0, fmt.Errorf("line %d: %w", i+1, err)
		}
		switch {
		case rank != i:
			return nil, 0, fmt.Errorf("line %d: rank %d, want %d: ranks must run from 0 in order", i+1, rank, i)
		case len(token) == 0 || len(token) > 255:
			return nil, 0, fmt.Errorf("line %d: a token of %d bytes", i+1, len(token))
		case seen[string(token)]:
			return nil, 0, fmt.Errorf("line %d: token %q listed twice", i+1, token)
		}
		seen[string(token)] = true
		lengths = append(lengths, byte(len(token)))
		tokens = append(tokens, token...)
	}
	n := len(lengths)
	if n == 0 {
		return nil, 0, errors.New("no tokens")
	}
	var buf bytes.Buffer
	buf.WriteString(magic)
	_ = binary.Write(&buf, binary.LittleEndian, uint32(n))
	buf.Write(lengths)
	buf.Write(tokens)
	return buf.Bytes(), n, nil
}
