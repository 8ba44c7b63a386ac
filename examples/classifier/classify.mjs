// Classifies text with the TF.js graph model that `tf_wordpiece.export.keras_model.save_tfjs` wrote (tokenizer and
// BERT in one graph), in Node with @tensorflow/tfjs (pure JavaScript).
//
//   npm install --prefix examples       # once, in the clone's root: examples/package.json, for every Node example
//   node examples/classifier/classify.mjs MODEL_DIR "Abrir o arquivo" "Open the file"   # one JSON array of logits per string
//   node examples/classifier/classify.mjs MODEL_DIR --json < strings.json              # a JSON array of strings in, {"logits": [...]} out
//   node examples/classifier/classify.mjs MODEL_DIR --bench REPEATS < batches.json     # timings: load, then each batch REPEATS times
//
// In a browser, load it with tf.loadGraphModel(URL_OF_MODEL_JSON) instead; the call is the same.
import * as fs from "node:fs";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import * as tf from "@tensorflow/tfjs";

// Production mode, as examples/tfjs/tokenize.mjs: no Node banner (the pure-JavaScript backend is the point here)
// and no debug checks.
tf.enableProdMode();

async function loadModel(dir) {
  if (!dir || !fs.existsSync(path.join(dir, "model.json"))) {
    console.error(`MODEL_DIR: no model.json in ${dir}; pass the folder that save_tfjs wrote`);
    process.exit(2);
  }
  // Pure @tensorflow/tfjs has no file system loader: hand it the files' contents.
  const json = JSON.parse(fs.readFileSync(path.join(dir, "model.json"), "utf8"));
  const manifest = json.weightsManifest[0];
  const weights = fs.readFileSync(path.join(dir, manifest.paths[0]));
  const artifacts = {
    modelTopology: json.modelTopology, format: json.format, generatedBy: json.generatedBy,
    convertedBy: json.convertedBy, signature: json.signature, weightSpecs: manifest.weights,
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
  };
  return { model: await tf.loadGraphModel(tf.io.fromMemory(artifacts)), signature: json.signature };
}

// Strings -> {output name: one array per string}. The model takes the strings' UTF-8 bytes end to end (int32:
// TF.js has no uint8) and each string's length in bytes.
async function run({ model, signature }, strings) {
  const encoded = strings.map((s) => new TextEncoder().encode(s));
  const bytes = new Int32Array(encoded.reduce((n, e) => n + e.length, 0));
  let at = 0;
  for (const e of encoded) { bytes.set(e, at); at += e.length; }
  const inputs = { bytes: tf.tensor1d(bytes, "int32"), row_lengths: tf.tensor1d(encoded.map((e) => e.length), "int32") };
  const names = Object.keys(signature.outputs);
  const result = await model.executeAsync(inputs, names.map((k) => signature.outputs[k].name));
  const outputs = Array.isArray(result) ? result : [result];  // one output comes back as a tensor, not a list
  const rows = await Promise.all(outputs.map((t) => t.array()));
  tf.dispose([...outputs, ...Object.values(inputs)]);
  return Object.fromEntries(names.map((k, i) => [k, rows[i]]));
}

// Strings -> logits, one array per string.
async function classify(loaded, strings) {
  return (await run(loaded, strings)).logits;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const [dir, ...args] = process.argv.slice(2);
const started = performance.now();
const loaded = await loadModel(dir);
const loadMs = performance.now() - started;
if (args[0] === "--json") {
  console.log(JSON.stringify(await run(loaded, JSON.parse(fs.readFileSync(0, "utf8")))));
} else if (args[0] === "--bench") {
  const repeats = Number(args[1]);
  const batches = JSON.parse(fs.readFileSync(0, "utf8"));
  const firstMs = [], medianMs = [];
  for (const batch of batches) {
    const times = [];
    for (let i = 0; i <= repeats; i++) {  // the first call (i = 0) compiles the graph's kernels: reported apart
      const t = performance.now();
      await run(loaded, batch);  // any graph model with the bytes inputs: the classifier, or a tokenizer alone
      times.push(performance.now() - t);
    }
    firstMs.push(times[0]);
    medianMs.push(median(times.slice(1)));
  }
  console.log(JSON.stringify({ load_ms: loadMs, first_call_ms: firstMs, median_ms: medianMs, backend: tf.getBackend() }));
} else {
  for (const row of await classify(loaded, args)) console.log(JSON.stringify(row));
}
