package main

import (
	"bytes"
	"html/template"
)

// replayPage is what the replay's page renders: the table the command
// prints, and a chart per setting.
type replayPage struct {
	Table  string
	Charts []template.HTML // SVG drawn and escaped by writeChart
	CSP    string
	CSS    template.CSS
}

// replayTemplate is the replay's page: no script at all.
var replayTemplate = template.Must(template.New("replay").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>compact replay</title>
<style>{{.CSS}}</style>
</head>
<body>
<header class="top"><h1>compact replay</h1></header>
<main class="panels list">
{{range .Charts}}<div class="panel chart">{{.}}</div>
{{end}}<div class="panel"><pre>{{.Table}}</pre></div>
</main>
</body>
</html>
`))

// replayCSS adds the charts' layout to the page's style.
const replayCSS = `
.list{display:block}.list>.panel{margin:0 0 12px}.chart svg{display:block;width:100%;height:auto}
`

// writeReplayPage writes the replay's results and charts to path, as one
// self-contained page. The table is the one the command prints, cleaned
// as every page is (setting names and file names are the user's).
func writeReplayPage(path string, rep *replayReport, charts []chartSeries) error {
	var table bytes.Buffer
	if err := rep.write(&table, false); err != nil {
		return err
	}
	p := replayPage{Table: clean(table.String()), CSS: template.CSS(pageCSS + replayCSS)}
	p.CSP = "default-src 'none'; style-src " + hashSource(string(p.CSS)) + "; script-src 'none'; img-src 'none'; base-uri 'none'; form-action 'none'"
	for _, s := range charts {
		s.Title = clean(s.Title)
		var b bytes.Buffer
		if err := writeChart(&b, s); err != nil {
			return err
		}
		p.Charts = append(p.Charts, template.HTML(b.String())) // writeChart escapes every text it writes
	}
	var out bytes.Buffer
	if err := replayTemplate.Execute(&out, p); err != nil {
		return err
	}
	return writeFiles(map[string][]byte{path: out.Bytes()})
}
