package main

import "html/template"

// pageTemplate is the HTML view's page. html/template escapes every value
// for where it lands; the CSS and the script are the package's own
// constants, allowed by hash in the page's Content-Security-Policy.
var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{"n": thousands, "plural": plural, "spare": func(a, b int) int { return a - b }}).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="compact">
<title>compact: {{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<header class="top">
<h1>{{.Title}}</h1>
<p class="line">{{plural .R.BeforeMessages "message"}}, {{plural .R.BeforeTokens "token"}} &rarr; {{plural .R.AfterMessages "message"}}, {{plural .R.AfterTokens "token"}}{{if .R.Note}} &middot; {{.R.Note}}{{end}}</p>
<p class="tools"><button type="button" id="expand">Expand all</button> <button type="button" id="collapse">Collapse all</button></p>
</header>
<section class="panels">
<div class="panel {{if .R.Fits}}fits{{else}}over{{end}}" id="fit">
<h2>Fit</h2>
<dl>
<dt>window</dt><dd>{{plural .R.Window "token"}}</dd>
<dt>threshold</dt><dd>{{plural .R.Threshold "token"}}</dd>
<dt>usable</dt><dd>{{plural .R.Usable "token"}} (the window less the reply's reserve)</dd>
<dt>after</dt><dd>{{plural .R.AfterTokens "token"}}</dd>
{{if .R.Fits}}<dt>fits</dt><dd>yes, {{plural (spare .R.Usable .R.AfterTokens) "token"}} to spare</dd>
{{else}}<dt>fits</dt><dd class="bad">no: {{plural .R.Overflow "token"}} over</dd>
{{with .R.TooLarge}}<dt>largest kept</dt><dd>output message <a href="#out-{{.Output}}">{{.Output}}</a> ({{.Role}}, {{plural .Tokens "token"}}){{if ge .Input 0}}, input <a href="#in-{{.Input}}">{{.Input}}</a>{{end}}</dd>{{end}}
{{end}}</dl>
</div>
<div class="panel" id="settings">
<h2>Settings</h2>
<dl>{{range .Settings}}<dt>{{.Name}}</dt><dd>{{.Value}}</dd>{{end}}
{{if .R.Summarizer}}<dt>summary by</dt><dd>{{.R.Summarizer}}{{if .R.Fallback}} (fallback: {{.R.FallbackReason}}){{end}}</dd>{{end}}
</dl>
</div>
<div class="panel" id="fates">
<h2>Fates</h2>
<p>What became of each input message, and what those messages weighed in the input:</p>
<ul class="legend">{{range .Fates}}<li><span class="chip f-{{.Fate}}">{{.Fate}}</span> {{plural .Count "message"}}, {{plural .Tokens "input token"}}</li>{{end}}</ul>
{{if .R.Pruned}}<p id="reclaimed">Pruning changed {{plural .R.Pruned "message"}} and reclaimed {{plural .R.PrunedTokens "token"}}.</p>{{end}}
{{if ge .R.SummaryIndex 0}}<p>Summarised input {{.R.SummarizedFrom}}&ndash;{{.R.SummarizedTo}} into output message <a href="#out-{{.R.SummaryIndex}}">{{.R.SummaryIndex}}</a> ({{plural .R.SummaryTokens "token"}}).</p>{{end}}
{{range .R.Repairs}}<p class="bad">Repaired input {{.Index}}: {{.Detail}}</p>{{end}}
</div>
</section>
{{if or .Facts .Summary}}<section class="summary" id="summary">
{{if .Facts}}<div class="facts"><h2>Facts index</h2>{{template "blocks" .Facts}}</div>{{end}}
<div class="body"><h2>Summary</h2>{{template "blocks" .Summary}}</div>
</section>{{end}}
<main class="columns">
<section class="side" id="before">
<h2>Before: {{plural (len .Before) "message"}}</h2>
{{range .Before}}{{template "message" .}}{{end}}
</section>
<section class="side" id="after">
<h2>After: {{plural (len .After) "message"}}</h2>
{{range .After}}{{template "message" .}}{{end}}
</section>
</main>
<script>{{.JS}}</script>
</body>
</html>
{{define "blocks"}}{{range .}}{{if eq .Kind "h"}}<h3>{{.Text}}</h3>{{else if eq .Kind "li"}}<p class="li d{{.Depth}}">{{.Text}}</p>{{else if eq .Kind "quote"}}<blockquote>{{.Text}}</blockquote>{{else}}<p>{{.Text}}</p>{{end}}{{end}}{{end}}
{{define "message"}}<article class="msg f-{{.Fate}}" id="{{.ID}}" data-index="{{.Index}}" data-fate="{{.Fate}}">
<header><span class="idx">{{.Index}}</span> <span class="role">{{.Role}}</span>{{if .Tool}} <span class="tool">{{.Tool}}</span>{{end}} <span class="tok">{{n .Tokens}} tok</span> <span class="chip f-{{.Fate}}">{{.Fate}}{{if .Pruned}}: {{.Pruned}}{{end}}</span>{{range .Links}} <a href="#{{.ID}}">{{.Label}}</a>{{end}}</header>
{{if .CallID}}<p class="call">answers {{.CallID}}</p>{{end}}
{{if .Preview}}<details><summary><span class="pv">{{.Preview}}</span> <span class="more">({{plural (len .Text) "byte"}})</span></summary><pre>{{.Text}}</pre></details>{{else if .Text}}<pre>{{.Text}}</pre>{{end}}
{{range .Calls}}<pre class="call">&#8594; {{.}}</pre>{{end}}
</article>
{{end}}`))
