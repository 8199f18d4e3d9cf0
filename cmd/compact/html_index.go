package main

import (
	"bytes"
	"html/template"
	"path/filepath"
)

// indexRow is one file of a batch on the index page.
type indexRow struct {
	File, Page string // the input's name, and its page relative to the index ("" when it failed)
	R          report
}

// indexPage is what the index template renders.
type indexPage struct {
	Rows []indexRow
	CSP  string
	CSS  template.CSS
}

// indexTemplate lists a batch's pages: a row per file with its sizes, its
// fit, and a link to its page.
var indexTemplate = template.Must(template.New("index").Funcs(template.FuncMap{"change": change, "n": thousands, "plural": plural}).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>compact: {{plural (len .Rows) "file"}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<header class="top"><h1>compact: {{plural (len .Rows) "file"}}</h1></header>
<main class="panels list">
<table class="index">
<thead><tr><th>file</th><th>messages</th><th>tokens</th><th>change</th><th>fits</th><th>result</th></tr></thead>
<tbody>
{{range .Rows}}<tr class="{{if .R.Error}}failed{{else if not .R.Fits}}over{{end}}">
<td>{{if .Page}}<a href="{{.Page}}">{{.File}}</a>{{else}}{{.File}}{{end}}</td>
<td>{{n .R.BeforeMessages}} &rarr; {{n .R.AfterMessages}}</td>
<td>{{n .R.BeforeTokens}} &rarr; {{n .R.AfterTokens}}</td>
<td>{{change .R.BeforeTokens .R.AfterTokens}}</td>
<td>{{if .R.Error}}&ndash;{{else if .R.Fits}}yes{{else}}no, {{n .R.Overflow}} over{{end}}</td>
<td>{{if .R.Error}}failed: {{.R.Error}}{{else if .R.Note}}{{.R.Note}}{{else if ge .R.SummaryIndex 0}}summarised {{.R.SummarizedFrom}}&ndash;{{.R.SummarizedTo}}{{else}}pruned{{end}}</td>
</tr>
{{end}}</tbody>
</table>
</main>
</body>
</html>
`))

// writeIndex writes dir/index.html for a batch's items and their reports
// (in the same order).
func writeIndex(dir string, items []batchItem, reports []report) error {
	p := indexPage{CSS: template.CSS(pageCSS + indexCSS)}
	p.CSP = "default-src 'none'; style-src " + hashSource(string(p.CSS)) + "; script-src 'none'; img-src 'none'; base-uri 'none'; form-action 'none'"
	for i, r := range reports {
		row := indexRow{File: filepath.Base(r.File), R: r}
		if r.Error == "" && i < len(items) && items[i].html != "" {
			row.Page = filepath.Base(items[i].html)
		}
		p.Rows = append(p.Rows, row)
	}
	var b bytes.Buffer
	if err := indexTemplate.Execute(&b, p); err != nil {
		return err
	}
	return writeFiles(map[string][]byte{filepath.Join(dir, "index.html"): b.Bytes()})
}

// indexCSS adds the index table's style to the page's.
const indexCSS = `
.list{display:block}
table.index{border-collapse:collapse;background:#fff;width:100%}
.index th,.index td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
.index tr.over td{background:var(--dropped)}.index tr.failed td{background:var(--pruned)}
`
