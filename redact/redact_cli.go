package redact

import "strings"

// credentialCommandTable lists the programs that take a credential through
// a flag whose name does not say so: -p is a port to ssh and docker run, a
// password to mysql and docker login. Each row is a family: the programs'
// names, the subcommands one of which must come before the flag (none: any
// place), and the flags. A flag ending in ":", "," or "%" takes
// user:password (user,password; user%password) and only the password goes.
// A one-letter flag also takes its value glued (-pSECRET). Flags whose name
// says secret (--password, -storepass) need no row: see flagSecrets.
var credentialCommandTable = [...]struct{ names, sub, flags string }{
	// Container and artifact registries.
	{"docker podman nerdctl buildah finch oras helm crane regctl skopeo", "login", "-p"},
	// Cloud command lines.
	{"az cf oc", "login", "-p"},
	// Database clients.
	{"mysql mysqldump mysqladmin mysqlimport mysqlshow mysqlcheck mysqlpump mysqlslap mysqlsh mariadb mariadb-dump mariadb-admin", "", "-p"},
	{"mongo mongosh mongodump mongorestore mongoexport mongoimport mongostat mongotop mongofiles", "", "-p"},
	{"redis-cli valkey-cli", "", "-a"},
	{"sqlcmd bcp", "", "-P"},
	{"ldapsearch ldapadd ldapmodify ldapdelete ldapwhoami ldappasswd ldapcompare ldapmodrdn ldapexop", "", "-w"},
	// Remote access, file transfer, archives, messaging, encryption.
	{"sshpass rdesktop", "", "-p"},
	{"curl", "", "-u: --user: -U: --proxy-user:"},
	{"http https xh xhs", "", "-a:"},
	{"lftp", "", "-u,"},
	{"smbclient", "", "-U%"},
	{"zip unzip", "", "-P"},
	{"7z 7za 7zr rar unrar", "", "-p"},
	{"mosquitto_pub mosquitto_sub mosquitto_rr", "", "-P"},
	{"openssl", "", "-k"},
}

// credentialCommand is a row of credentialCommandTable for one program.
type credentialCommand struct {
	sub   []string
	flags []credentialFlag
}

// credentialFlag is a flag of a credentialCommand: its name as written,
// and the separator of user and password in its value (0: the value is the
// secret).
type credentialFlag struct {
	name string
	sep  byte
}

// credentialCommands maps a program's name to its row.
var credentialCommands = buildCredentialCommands()

// commandStarts holds the first two bytes of the programs' names: most
// words of a text are no program's name, and the table says so without
// looking the word up.
var commandStarts = func() *[1 << 16]bool {
	var t [1 << 16]bool
	for name := range credentialCommands {
		t[uint16(name[0])<<8|uint16(name[1])] = true
	}
	return &t
}()

func buildCredentialCommands() map[string]*credentialCommand {
	m := map[string]*credentialCommand{}
	for _, row := range credentialCommandTable {
		c := &credentialCommand{sub: strings.Fields(row.sub)}
		for _, f := range strings.Fields(row.flags) {
			var sep byte
			if last := f[len(f)-1]; strings.IndexByte(":,%", last) >= 0 {
				f, sep = f[:len(f)-1], last
			}
			c.flags = append(c.flags, credentialFlag{f, sep})
		}
		for _, name := range strings.Fields(row.names) {
			m[name] = c
		}
	}
	return m
}

// commandSecrets finds the credentials given to the programs of
// credentialCommands on their command lines, wherever a command starts (a
// line, a shell list or pipe, a quoted string, a path to the program), and
// calls emit with each one's span, in order.
func commandSecrets(s string, emit func(a, b int)) {
	for i := 0; i < len(s); {
		if !commandNameClass[s[i]] {
			i++
			continue
		}
		e := commandNameClass.run(s, i)
		if i > 0 && !commandBefore[s[i-1]] && !escapedBreak(s, i) {
			i = e // inside a longer word: the part of it after i is no command either
			continue
		}
		if e-i < 2 || e >= len(s) || (s[e] != ' ' && s[e] != '\t') || !commandStarts[uint16(s[i])<<8|uint16(s[i+1])] {
			i = e
			continue
		}
		c, ok := credentialCommands[s[i:e]]
		if !ok {
			i = e
			continue
		}
		i = c.scan(s, e, emit)
	}
}

var (
	commandNameClass = newClass(lowerChars, digitChars, "_-")
	commandBefore    = newClass(" \t\n;&|(`\"'/")
)

// scan reads the arguments of the command whose name ends at s[i] and
// emits its credentials. It returns where the command ends.
func (c *credentialCommand) scan(s string, i int, emit func(a, b int)) int {
	limit := windowEnd(s, i)
	subSeen := len(c.sub) == 0
	for {
		start, end, ok := nextWord(s, i, limit)
		if !ok {
			return end
		}
		i = end
		if !subSeen {
			for _, sub := range c.sub {
				subSeen = subSeen || s[start:end] == sub
			}
			continue
		}
		for _, f := range c.flags {
			a, b, next, found := flagArgument(s, start, end, limit, f.name)
			if !found {
				continue
			}
			i = next
			if a, ok := credentialIn(s[a:b], a, f.sep); ok {
				emit(a, b)
			}
			break
		}
	}
}

// flagArgument reports whether the word s[start:end] is the flag name or
// starts with it, and returns the span of the flag's value, glued to it
// (-pSECRET, -p=SECRET, -p"SECRET") or the next word, and where the value's
// word ends. The span is inside a quoted value's quotes, and empty when
// there is no value.
func flagArgument(s string, start, end, limit int, name string) (a, b, next int, found bool) {
	word := s[start:end]
	switch {
	case word == name || word == name+"=":
		if end < limit && !wordGap(s, end) {
			next = wordEnd(s, end, limit)
			a, b = valueIn(s, end, next)
			return a, b, next, true
		}
		if word != name {
			return end, end, end, true
		}
		vs, ve, ok := nextWord(s, end, limit)
		if !ok || strings.IndexByte("-<>", s[vs]) >= 0 {
			return end, end, end, true // no value, or another flag: a prompt asks for it
		}
		a, b = valueIn(s, vs, ve)
		return a, b, ve, true
	case strings.HasPrefix(word, name+"="):
		return start + len(name) + 1, end, end, true
	case len(name) == 2 && strings.HasPrefix(word, name):
		return start + len(name), end, end, true
	}
	return 0, 0, 0, false
}

// credentialIn returns where the secret of a flag's value v (found at a)
// starts: all of it, or, when sep is set, what follows the first sep. A
// placeholder or an empty value holds none.
func credentialIn(v string, a int, sep byte) (int, bool) {
	if sep != 0 {
		k := strings.IndexByte(v, sep)
		if k < 0 {
			return 0, false
		}
		v, a = v[k+1:], a+k+1
	}
	return a, v != "" && v != Marker && !isPlaceholder(v)
}

// nextWord skips the blanks after s[i] and returns the span of the next
// word of a command line, or false at the end of the command: its line's
// end (a newline, or the escaped \n of a JSON string), a list or pipe
// operator (; & |), or limit. end is then where the command ends.
func nextWord(s string, i, limit int) (start, end int, ok bool) {
	for i < limit {
		if s[i] == ' ' || s[i] == '\t' {
			i++
		} else if strings.HasPrefix(s[i:], `\t`) {
			i += 2
		} else {
			break
		}
	}
	if i >= limit || s[i] == '\n' || strings.IndexByte(";&|", s[i]) >= 0 || skipLineBreak(s, i) > i {
		return i, i, false
	}
	return i, wordEnd(s, i, limit), true
}

// wordEnd returns the end of the word starting at s[i]: a quoted string
// ('...', "...", or \"...\" inside JSON) with its quotes, or a run of bytes
// up to a blank, a quote, a backslash or a shell operator. A lone operator
// byte is a word of its own.
func wordEnd(s string, i, limit int) int {
	if _, b, ok := quoted(s, i); ok {
		q := 1
		if s[i] == '\\' {
			q = 2
		}
		return min(b+q, limit)
	}
	e := i
	for e < limit && !wordStop[s[e]] {
		e++
	}
	if e == i {
		e = min(i+1, limit)
	}
	return e
}

// wordGap reports whether s[i] ends a word: a blank, a line break, an
// operator.
func wordGap(s string, i int) bool {
	return strings.IndexByte(" \t\n;&|<>()", s[i]) >= 0 || skipLineBreak(s, i) > i || strings.HasPrefix(s[i:], `\t`)
}

// valueIn returns the text of the word s[a:b]: inside its quotes when it is
// quoted.
func valueIn(s string, a, b int) (int, int) {
	if qa, qb, ok := quoted(s, a); ok && qb <= b {
		return qa, qb
	}
	return a, b
}

var wordStop = newClass(" \t\n\"'`;&|\\<>()")
