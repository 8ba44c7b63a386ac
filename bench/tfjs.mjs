// The TF.js benchmark's Node side (run by bench/tfjs.py): our graph model against @huggingface/tokenizers.
//
//   node tfjs.mjs MODEL_DIR TOKENIZER_JSON LINES_JSON REPEATS
//
// Both tokenize the same lines: ids are checked equal first (one line a call, and batches of 64), then each
// contender's milliseconds per call are timed in interleaved passes (medians). Prints one JSON object.
import * as fs from "node:fs";
import * as path from "node:path";
import * as tf from "@tensorflow/tfjs";
import { Tokenizer } from "@huggingface/tokenizers";

const [modelDir, tokenizerJson, linesJson, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg || 5);
const BATCH = 64;

async function loadModel(dir) {
  const json = JSON.parse(fs.readFileSync(path.join(dir, "model.json"), "utf8"));
  const manifest = json.weightsManifest[0];
  const weights = fs.readFileSync(path.join(dir, manifest.paths[0]));
  const artifacts = {
    modelTopology: json.modelTopology, format: json.format, generatedBy: json.generatedBy,
    convertedBy: json.convertedBy, signature: json.signature, weightSpecs: manifest.weights,
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
  };
  const model = await tf.loadGraphModel(tf.io.fromMemory(artifacts));
  const keys = Object.keys(json.signature.outputs);
  const names = keys.map((k) => json.signature.outputs[k].name);
  // A graph without control flow or ops of data-dependent shape (Where) may run with the synchronous `execute`.
  const ops = new Set(json.modelTopology.node.map((n) => n.op));
  for (const f of json.modelTopology.library?.function ?? []) for (const n of f.nodeDef ?? []) ops.add(n.op);
  const sync = ![...ops].some((op) => /While|If|Switch|Merge|Enter|Exit|NextIteration|^Where$/.test(op));
  return { model, keys, names, sync, nodes: json.modelTopology.node.length };
}

const encoder = new TextEncoder();

// Strings -> flat ids per string (ours: UTF-8 bytes in, ids out).
async function ours({ model, keys, names, sync }, strings) {
  const encoded = strings.map((s) => encoder.encode(s));
  const bytes = new Int32Array(encoded.reduce((n, e) => n + e.length, 0));
  let at = 0;
  for (const e of encoded) { bytes.set(e, at); at += e.length; }
  const inputs = { bytes: tf.tensor1d(bytes, "int32"), row_lengths: tf.tensor1d(encoded.map((e) => e.length), "int32") };
  const outputs = sync ? model.execute(inputs, names) : await model.executeAsync(inputs, names);
  tf.dispose(Object.values(inputs));
  const ids = outputs[keys.indexOf("token_ids")].dataSync();
  const rowLengths = outputs[keys.indexOf("row_lengths")].dataSync();
  tf.dispose(outputs);
  const rows = [];
  let start = 0;
  for (const n of rowLengths) { rows.push(Array.from(ids.subarray(start, start + n))); start += n; }
  return rows;
}

function theirs(tokenizer, strings) {
  return strings.map((s) => tokenizer.encode(s, { add_special_tokens: false }).ids);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const loaded = await loadModel(modelDir);
const hf = new Tokenizer(JSON.parse(fs.readFileSync(tokenizerJson, "utf8")), {});
const lines = JSON.parse(fs.readFileSync(linesJson, "utf8"));
const singles = lines.slice(0, 64).map((line) => [line]);
const batches = [];
for (let i = 0; i + BATCH <= lines.length && batches.length < 8; i += BATCH) batches.push(lines.slice(i, i + BATCH));

// Ids first: every call of both shapes, compared row by row.
for (const [label, calls] of [["one line", singles], [`batch ${BATCH}`, batches]]) {
  for (const call of calls) {
    const a = await ours(loaded, call), b = theirs(hf, call);
    for (let r = 0; r < call.length; r++) {
      if (JSON.stringify(a[r]) !== JSON.stringify(b[r])) {
        console.error(`${label}: ids differ on ${JSON.stringify(call[r]).slice(0, 200)}\nours ${a[r]}\nhf   ${b[r]}`);
        process.exit(1);
      }
    }
  }
}

const samples = { ours_one: [], hf_one: [], ours_batch: [], hf_batch: [] };
async function timed(key, calls, run) {
  const start = performance.now();
  for (const call of calls) await run(call);
  samples[key].push((performance.now() - start) / calls.length);
}
for (let r = 0; r < repeats; r++) {
  await timed("ours_one", singles, (c) => ours(loaded, c));
  await timed("hf_one", singles, (c) => theirs(hf, c));
  await timed("ours_batch", batches, (c) => ours(loaded, c));
  await timed("hf_batch", batches, (c) => theirs(hf, c));
}
const result = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
console.log(JSON.stringify({ ...result, sync: loaded.sync, nodes: loaded.nodes, tfjs: tf.version.tfjs,
  backend: tf.getBackend(), calls_one: singles.length, calls_batch: batches.length }));
