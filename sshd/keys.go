package sshd

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	gossh "golang.org/x/crypto/ssh"
)

// hostKey loads the server's private key from path, generating an
// ed25519 key there the first time (0600, in a 0700 directory), so the
// server keeps one identity and clients' known_hosts stay valid. A key
// others can read is refused, as OpenSSH refuses one: anyone who can read
// it can pose as this server.
func hostKey(path string) (signer gossh.Signer, created bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return newHostKey(path)
	}
	if err != nil {
		return nil, false, fmt.Errorf("cannot read the host key: %w", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, false, fmt.Errorf("cannot read the host key: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, false, fmt.Errorf("the host key %s can be read by others (mode %04o) — run `chmod 600 %s`", path, st.Mode().Perm(), path)
	}
	signer, err = gossh.ParsePrivateKey(b)
	if err != nil {
		return nil, false, fmt.Errorf("the host key %s is not a private key (%w) — move it away and a new one is made", path, err)
	}
	return signer, false, nil
}

// newHostKey writes a fresh ed25519 key to path, which must not exist.
func newHostKey(path string) (gossh.Signer, bool, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, false, err
	}
	block, err := gossh.MarshalPrivateKey(priv, "chorus host key")
	if err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, fmt.Errorf("cannot create the host key: %w", err)
	}
	// O_EXCL: two servers starting at once never overwrite each other's key.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("cannot create the host key: %w", err)
	}
	if _, err := f.Write(pem.EncodeToMemory(block)); err != nil {
		f.Close()
		os.Remove(path)
		return nil, false, fmt.Errorf("cannot write the host key: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, false, fmt.Errorf("cannot write the host key: %w", err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	return signer, true, err
}

// ErrNoKeys is wrapped when the authorized_keys file is missing or
// allows nobody.
var ErrNoKeys = errors.New("no authorized keys")

// authorizedKey is one key of an authorized_keys file.
type authorizedKey struct {
	key     gossh.PublicKey
	comment string
}

// readAuthorizedKeys parses an OpenSSH authorized_keys file. Lines with
// options (from=, command=, restrict…) are skipped and reported in
// skipped: Chorus does not enforce them, and granting such a key more than
// its line says would be worse than refusing it. A line that is not a key
// is an error naming it.
func readAuthorizedKeys(path string) (keys []authorizedKey, skipped []string, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		// The command must work as given, on a fresh install too, where
		// the folder does not exist yet.
		cmd := "cat ~/.ssh/id_ed25519.pub >> " + shellQuote(path)
		if _, err := os.Stat(filepath.Dir(path)); errors.Is(err, fs.ErrNotExist) {
			cmd = "mkdir -p " + shellQuote(filepath.Dir(path)) + " && " + cmd
		}
		return nil, nil, fmt.Errorf("%w: %s does not exist — put the public keys allowed to connect in it, e.g. `%s` (or set serve.authorized_keys)", ErrNoKeys, path, cmd)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the authorized keys: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		key, comment, options, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: not a public key (%w)", path, n, err)
		}
		if len(options) > 0 {
			skipped = append(skipped, fmt.Sprintf("%s:%d (%s): key options are not supported by chorus serve; give the key without them", path, n, fingerprint(key)))
			continue
		}
		keys = append(keys, authorizedKey{key: key, comment: comment})
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("cannot read the authorized keys: %w", err)
	}
	if len(keys) == 0 {
		return nil, skipped, fmt.Errorf("%w: %s lists no usable key — add the public keys allowed to connect", ErrNoKeys, path)
	}
	return keys, skipped, nil
}

// shellQuote quotes s for a POSIX shell when it needs it (a space in
// "Application Support").
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fingerprint is a key's SHA256 fingerprint as ssh-keygen -l prints it.
func fingerprint(k gossh.PublicKey) string { return gossh.FingerprintSHA256(k) }

// userDirName is the directory name of a key's user: its fingerprint in a
// form safe in a path (URL-safe base64 of the SHA-256 of the key).
func userDirName(k gossh.PublicKey) string {
	sum := sha256.Sum256(k.Marshal())
	return "sha256-" + base64.RawURLEncoding.EncodeToString(sum[:])
}
