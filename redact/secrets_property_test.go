package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/secrettest"
)

// jsonObject encodes members, in order, as a JSON object the way a model
// writes tool arguments.
func jsonObject(t *testing.T, kv ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		k, err := json.Marshal(kv[i])
		if err != nil {
			t.Fatal(err)
		}
		v, err := json.Marshal(kv[i+1])
		if err != nil {
			t.Fatal(err)
		}
		b.Write(k)
		b.WriteString(": ")
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

// Every secret of the corpus, in every form redaction meets it, loses every
// piece of MinLeak bytes; JSON stays valid JSON.
func TestNoSecretPieceSurvives(t *testing.T) {
	if n := len(secrettest.Secrets); n < 60 {
		t.Fatalf("the corpus has %d secrets; keep at least 60 shapes", n)
	}
	for _, sec := range secrettest.Secrets {
		t.Run(sec.Name, func(t *testing.T) {
			forms := map[string]string{
				"text":             String("Here is the config:\n" + sec.Text + "\nThanks."),
				"json argument":    JSON(jsonObject(t, "input", sec.Text)),
				"shell command":    JSON(jsonObject(t, "command", "cd /srv/app && "+sec.Text)),
				"echo to a file":   JSON(jsonObject(t, "command", "echo '"+sec.Text+"' >> .env", "timeout", "30")),
				"redirection":      JSON(jsonObject(t, "command", "echo "+sec.Text+" >> .env")),
				"json tool output": JSON(jsonObject(t, "stdout", sec.Text+"\n", "stderr", "")),
				"json lines":       JSON(`{"level":"info","msg":"start"}` + "\n" + jsonObject(t, "msg", sec.Text) + "\n"),
			}
			if sec.Key != "" {
				forms["json pair"] = JSON(jsonObject(t, sec.Key, sec.Value, "region", "eu-west-1"))
				forms["nested json pair"] = JSON(`{"config": ` + jsonObject(t, sec.Key, sec.Value) + `}`)
			}
			if sec.Bare {
				forms["bare json value"] = JSON(jsonObject(t, "q", sec.Value))
				forms["bare text"] = String(sec.Value)
			}
			for form, out := range forms {
				if p := secrettest.Leaked(out, sec.Value); p != "" {
					t.Errorf("%s: %q survived in:\n%s", form, p, out)
				}
				if strings.HasPrefix(form, "json") || strings.HasSuffix(form, "argument") || form == "shell command" || form == "echo to a file" || form == "redirection" {
					if form != "json lines" && !json.Valid([]byte(out)) {
						t.Errorf("%s: invalid JSON: %s", form, out)
					}
				}
			}
		})
	}
}
