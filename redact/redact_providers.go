package redact

import "strings"

// providerShapes are the keys of the other providers that publish a token
// prefix (or an infix), so a key of theirs is recognised with no name beside
// it. Each rule is written from the provider's documented format: its
// prefix, its alphabet, its length. A prefix is kept when it is short (under
// 12 bytes, so no 12-byte piece of a key survives) and names the provider;
// longer ones go with the key.
//
// The list was checked against the public rule list of gitleaks (MIT), the
// prefixes that need no name beside them.
var providerShapes = []keyShape{
	// Models and AI platforms: Groq, Replicate, Perplexity, xAI, Tavily,
	// LangSmith, Fireworks, Pinecone, NVIDIA, Hugging Face organisations.
	{prefix: "gsk_", body: alnumClass, min: 40, keep: true},
	{prefix: "r8_", body: alnumClass, min: 30, whole: true, keep: true, valid: randomKeyBody},
	{prefix: "pplx-", body: alnumClass, min: 40, keep: true},
	{prefix: "xai-", body: alnumClass, min: 60, keep: true},
	{prefix: "tvly-", body: b64urlClass, min: 24, keep: true},
	{prefix: "lsv2_pt_", body: wordClass, min: 32, keep: true},
	{prefix: "lsv2_sk_", body: wordClass, min: 32, keep: true},
	{prefix: "fw_", body: alnumClass, min: 20, whole: true, keep: true, valid: randomKeyBody},
	{prefix: "pcsk_", body: wordClass, min: 40, keep: true},
	{prefix: "nvapi-", body: b64urlClass, min: 40, keep: true},
	{prefix: "api_org_", body: alnumClass, min: 30, keep: true},

	// Code hosting, registries and CI: Docker Hub, GitLab's other tokens,
	// Atlassian and Bitbucket, RubyGems, Clojars, NuGet, ReadMe, Pulumi,
	// Sourcegraph, CircleCI, Buildkite, JFrog.
	{prefix: "dckr_pat_", body: b64urlClass, min: 20, keep: true},
	{prefix: "dckr_oat_", body: b64urlClass, min: 20, keep: true},
	{prefix: "glcbt-", body: b64urlClass, min: 20, keep: true},
	{prefix: "gldt-", body: b64urlClass, min: 20, keep: true},
	{prefix: "glffct-", body: b64urlClass, min: 20, keep: true},
	{prefix: "glft-", body: b64urlClass, min: 20, keep: true},
	{prefix: "glimt-", body: b64urlClass, min: 25, keep: true},
	{prefix: "glagent-", body: b64urlClass, min: 50, keep: true},
	{prefix: "gloas-", body: b64urlClass, min: 64, keep: true},
	{prefix: "glrt-", body: b64urlClass, min: 20, keep: true},
	{prefix: "glsoat-", body: b64urlClass, min: 20, keep: true},
	{prefix: "GR1348941", body: b64urlClass, min: 20, keep: true},
	{prefix: "ATATT3", body: newClass(alnumChars, "_-="), min: 150, keep: true, b64Edge: true},
	{prefix: "ATBB", body: alnumClass, min: 28, whole: true, keep: true, b64Edge: true, valid: randomKeyBody},
	{prefix: "rubygems_", body: hexClass, min: 48, keep: true},
	{prefix: "CLOJARS_", body: alnumClass, min: 50, keep: true},
	{prefix: "oy2", body: newClass(lowerChars, digitChars), min: 43, max: 43, whole: true, keep: true, b64Edge: true, valid: hexKeyBody},
	{prefix: "rdme_", body: alnumClass, min: 60, keep: true},
	{prefix: "pul-", body: hexClass, min: 40, keep: true},
	{prefix: "sgp_", body: wordClass, min: 40, keep: true},
	{prefix: "CCIPAT_", body: wordClass, min: 40, keep: true},
	{prefix: "bkua_", body: hexClass, min: 40, keep: true},
	{prefix: "AKCp", body: alnumClass, min: 60, keep: true, b64Edge: true},
	{prefix: "cmVmdGtuOjAxOj", body: b64Class, min: 40, b64Edge: true},

	// Cloud and hosting: more AWS key ids, Alibaba, DigitalOcean refresh
	// tokens, Cloudflare origin CA keys, OpenShift, Fly.io, Heroku,
	// Netlify, Render, Supabase, PlanetScale, Tailscale, Vault, Doppler,
	// Yandex, Terraform Cloud (an infix), Azure AD client secrets (an
	// infix).
	{prefix: "ABIA", body: newClass(upperChars, digitChars), min: 16, max: 16, whole: true, keep: true, paired: true},
	{prefix: "ACCA", body: newClass(upperChars, digitChars), min: 16, max: 16, whole: true, keep: true, paired: true},
	{prefix: "LTAI", body: alnumClass, min: 12, max: 30, whole: true, keep: true, b64Edge: true, valid: randomKeyBody},
	{prefix: "dor_v1_", body: hexClass, min: 64, keep: true},
	{prefix: "v1.0-", body: newClass(hexChars, "-"), min: 150, keep: true},
	{prefix: "sha256~", body: b64urlClass, min: 43, max: 43, whole: true, keep: true},
	{prefix: "fo1_", body: b64urlClass, min: 40, keep: true},
	{prefix: "fm1a_", body: b64padClass, min: 40, keep: true},
	{prefix: "fm1r_", body: b64padClass, min: 40, keep: true},
	{prefix: "fm2_", body: b64padClass, min: 40, keep: true},
	{prefix: "HRKU-", body: b64urlClass, min: 20, keep: true},
	{prefix: "nfp_", body: alnumClass, min: 36, keep: true},
	{prefix: "rnd_", body: alnumClass, min: 28, whole: true, keep: true, valid: randomKeyBody},
	{prefix: "sbp_", body: alnumClass, min: 40, keep: true},
	{prefix: "sb_secret_", body: b64urlClass, min: 20, keep: true},
	{prefix: "pscale_tkn_", body: newClass(alnumChars, "_=.-"), min: 32, keep: true},
	{prefix: "pscale_oauth_", body: newClass(alnumChars, "_=.-"), min: 32},
	{prefix: "pscale_pw_", body: newClass(alnumChars, "_=.-"), min: 32, keep: true},
	{prefix: "tskey-", body: b64urlClass, min: 20, keep: true},
	{prefix: "hvs.", body: b64urlClass, min: 24, keep: true},
	{prefix: "hvb.", body: b64urlClass, min: 24, keep: true},
	{prefix: "hvr.", body: b64urlClass, min: 24, keep: true},
	{prefix: "dp.pt.", body: alnumClass, min: 40, keep: true},
	{prefix: "dp.st.", body: newClass(alnumChars, "_."), min: 40, keep: true},
	{prefix: "dp.ct.", body: alnumClass, min: 40, keep: true},
	{prefix: "dp.sa.", body: alnumClass, min: 40, keep: true},
	{prefix: "dp.scim.", body: alnumClass, min: 40, keep: true},
	{prefix: "dp.audit.", body: alnumClass, min: 40, keep: true},
	{prefix: "AQVN", body: b64urlClass, min: 35, max: 40, whole: true, keep: true, b64Edge: true},
	{prefix: ".atlasv1.", body: newClass(alnumChars, "_=-"), min: 60, lead: alnumLead(14, 14)},
	{prefix: "Q~", body: newClass(alnumChars, "_~.-"), min: 31, max: 34, whole: true, lead: azureSecretLead},

	// Data and analytics: Databricks, Dynatrace, New Relic, Grafana,
	// Sentry's own tokens, Postman, Prefect, Infracost, Settlemint.
	{prefix: "dapi", body: hexClass, min: 32, max: 32, whole: true, keep: true, valid: hexKeyBody},
	{prefix: "dt0c01.", body: newClass(alnumChars, "."), min: 80, keep: true},
	{prefix: "NRAK-", body: alnumClass, min: 27, keep: true},
	{prefix: "NRII-", body: newClass(alnumChars, "-_"), min: 32, keep: true},
	{prefix: "NRJS-", body: hexClass, min: 19, keep: true},
	{prefix: "glc_", body: b64padClass, min: 32, keep: true},
	{prefix: "glsa_", body: wordClass, min: 40, keep: true},
	{prefix: "eyJrIjoi", body: newClass(alnumChars, "="), min: 70, b64Edge: true},
	{prefix: "sntrys_", body: b64padClass, min: 40, keep: true},
	{prefix: "sntryu_", body: hexClass, min: 64, keep: true},
	{prefix: "PMAK-", body: newClass(hexChars, "-"), min: 50, keep: true},
	{prefix: "pnu_", body: alnumClass, min: 36, keep: true},
	{prefix: "ico-", body: alnumClass, min: 32, max: 32, whole: true, keep: true},
	{prefix: "sm_aat_", body: alnumClass, min: 16, keep: true},
	{prefix: "sm_pat_", body: alnumClass, min: 16, keep: true},
	{prefix: "sm_sat_", body: alnumClass, min: 16, keep: true},

	// Payments and commerce: Stripe's prod keys, Square, Shopify private
	// apps, Shippo, Duffel, EasyPost, Flutterwave, Adobe.
	{prefix: "sk_prod_", body: alnumClass, min: 16, keep: true},
	{prefix: "rk_prod_", body: alnumClass, min: 16, keep: true},
	{prefix: "sq0atp-", body: b64urlClass, min: 22, keep: true},
	{prefix: "sq0csp-", body: b64urlClass, min: 40, keep: true},
	{prefix: "EAAA", body: b64urlClass, min: 60, keep: true, b64Edge: true, valid: randomKeyBody},
	{prefix: "shppa_", body: hexClass, min: 32, keep: true},
	{prefix: "shippo_live_", body: hexClass, min: 40},
	{prefix: "shippo_test_", body: hexClass, min: 40},
	{prefix: "duffel_live_", body: b64urlClass, min: 40},
	{prefix: "duffel_test_", body: b64urlClass, min: 40},
	{prefix: "EZAK", body: alnumClass, min: 54, keep: true, b64Edge: true},
	{prefix: "EZTK", body: alnumClass, min: 54, keep: true, b64Edge: true},
	{prefix: "FLWSECK_TEST-", body: newClass(alnumChars, "-"), min: 12},
	{prefix: "FLWSECK-", body: newClass(alnumChars, "-"), min: 12, keep: true},
	{prefix: "p8e-", body: alnumClass, min: 32, keep: true},

	// Messaging and productivity: Slack's app and configuration tokens,
	// Microsoft Teams webhooks, Telegram bot tokens (an infix), Brevo,
	// Mailchimp (a suffix), Linear, Notion, Figma, Typeform, Frame.io,
	// Airtable, Harness, Mapbox secret tokens, Facebook.
	{prefix: "xapp-", body: newClass(alnumChars, "-"), min: 20, keep: true},
	{prefix: "xoxe.xoxb-", body: newClass(alnumChars, "-"), min: 100},
	{prefix: "xoxe.xoxp-", body: newClass(alnumChars, "-"), min: 100},
	{prefix: "xoxo-", body: newClass(alnumChars, "-"), min: 10, keep: true},
	{prefix: ".webhook.office.com/webhookb2/", body: newClass(alnumChars, "-@/"), min: 40, keep: true},
	{prefix: ":A", body: b64urlClass, min: 33, max: 34, whole: true, lead: telegramLead},
	{prefix: "api.telegram.org/bot", body: telegramURLClass, min: 20, keep: true},
	{prefix: "api.telegram.org/file/bot", body: telegramURLClass, min: 20, keep: true},
	{prefix: "xkeysib-", body: newClass(alnumChars, "-"), min: 60, keep: true},
	{prefix: "xsmtpsib-", body: newClass(alnumChars, "-"), min: 60, keep: true},
	{prefix: "-us", body: newClass(digitChars), min: 1, max: 2, whole: true, lead: hexLead(32)},
	{prefix: "lin_api_", body: alnumClass, min: 40, keep: true},
	{prefix: "ntn_", body: alnumClass, min: 40, keep: true},
	{prefix: "secret_", body: alnumClass, min: 43, max: 43, whole: true, keep: true, valid: randomKeyBody},
	{prefix: "figd_", body: b64urlClass, min: 30, keep: true},
	{prefix: "tfp_", body: newClass(alnumChars, "_-.="), min: 50, keep: true},
	{prefix: "fio-u-", body: newClass(alnumChars, "_-="), min: 60, keep: true},
	{prefix: "pat.", body: newClass(alnumChars, "_-."), min: 68, keep: true, valid: harnessBody},
	{prefix: "sat.", body: newClass(alnumChars, "_-."), min: 68, keep: true, valid: harnessBody},
	{prefix: "pat", body: newClass(alnumChars, "."), min: 79, keep: true, valid: airtableBody},
	{prefix: "sk.eyJ", body: newClass(alnumChars, "_-."), min: 60, keep: true},
	{prefix: "EAA", body: alnumClass, min: 100, keep: true, b64Edge: true},

	// Secret and encryption keys: age, 1Password service accounts, Google
	// OAuth refresh tokens, Intra42 client secrets.
	{prefix: "AGE-SECRET-KEY-1", body: newClass(upperChars, digitChars), min: 58, max: 58, whole: true},
	{prefix: "ops_eyJ", body: b64padClass, min: 200, keep: true},
	{prefix: "1//0", body: b64urlClass, min: 40, keep: true},
	{prefix: "s-s4t2ud-", body: hexClass, min: 64, keep: true},
	{prefix: "s-s4t2af-", body: hexClass, min: 64, keep: true},
}

// b64padClass is base64 of either alphabet, with padding.
var b64padClass = newClass(alnumChars, "+/=_-")

// alnumLead returns a lead that takes the min to max letters and digits
// just before the prefix.
func alnumLead(min, max int) func(s string, p int) int {
	return func(s string, p int) int {
		i := p
		for i > 0 && p-i < max && alnumClass[s[i-1]] {
			i--
		}
		if p-i < min || (i > 0 && wordClass[s[i-1]]) {
			return -1
		}
		return i
	}
}

// hexLead returns a lead that takes exactly n hex digits just before the
// prefix (a Mailchimp key before its "-us12" data centre).
func hexLead(n int) func(s string, p int) int {
	return func(s string, p int) int {
		i := p
		for i > 0 && p-i < n+1 && hexClass[s[i-1]] {
			i--
		}
		if p-i != n || (i > 0 && wordClass[s[i-1]]) {
			return -1
		}
		if _, _, digit := classes(s[i:p]); !digit {
			return -1
		}
		return i
	}
}

// telegramURLClass is what a Telegram bot token in its API URL is made of
// (https://api.telegram.org/bot<id>:<secret>/sendMessage): the URL says
// what it is, whatever its length.
var telegramURLClass = newClass(alnumChars, ":_-")

// telegramLead takes a Telegram bot token's bot id: 5 to 16 digits before
// the ":AA..." of its secret (34 or 35 characters after the colon), on
// their own or after the "bot" of an API URL
// (https://api.telegram.org/bot<token>/getMe).
func telegramLead(s string, p int) int {
	i := p
	for i > 0 && p-i <= 16 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if p-i < 5 || p-i > 16 {
		return -1
	}
	if i >= 3 && s[i-3:i] == "bot" && (i == 3 || !wordClass[s[i-4]]) {
		return i
	}
	if i > 0 && wordClass[s[i-1]] && !escapedBreak(s, i) {
		return -1
	}
	return i
}

// azureSecretLead takes the four characters an Azure AD client secret has
// before its "Q~": three of its alphabet and a digit.
func azureSecretLead(s string, p int) int {
	const class = alnumChars + "_~."
	if p < 4 || s[p-1] < '0' || s[p-1] > '9' {
		return -1
	}
	for i := p - 4; i < p-1; i++ {
		if strings.IndexByte(class, s[i]) < 0 {
			return -1
		}
	}
	if p > 4 && wordClass[s[p-5]] {
		return -1
	}
	return p - 4
}

// airtableBody accepts an Airtable personal access token after "pat": 14
// letters and digits, a dot, 64 hex digits.
func airtableBody(body string) int {
	const id, secret = 14, 64
	if len(body) < id+1+secret || body[id] != '.' || alnumClass.run(body, 0) != id || hexClass.run(body, id+1) < id+1+secret {
		return 0
	}
	return id + 1 + secret
}

// harnessBody accepts a Harness token after "pat." or "sat.": three
// dot-separated parts of 22, 24 and 20 characters.
func harnessBody(body string) int {
	parts := strings.SplitN(body, ".", 4)
	if len(parts) < 3 || len(parts[0]) != 22 || len(parts[1]) != 24 || len(parts[2]) < 20 {
		return 0
	}
	if b64urlClass.run(parts[0], 0) != 22 || alnumClass.run(parts[1], 0) != 24 || alnumClass.run(parts[2], 0) < 20 {
		return 0
	}
	return 22 + 1 + 24 + 1 + 20
}
