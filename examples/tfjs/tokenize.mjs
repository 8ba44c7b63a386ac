// Tokenizes text with a tf_wordpiece TF.js graph model, in Node with @tensorflow/tfjs (pure JavaScript).
//
//   npm install --prefix examples       # once, in the clone's root: examples/package.json, for every Node example
//   node examples/tfjs/tokenize.mjs MODEL_DIR "Hello TensorFlow!" "Olá mundo"   # one JSON object per string
//   node examples/tfjs/tokenize.mjs MODEL_DIR --json < strings.json             # a JSON array of strings in, one array out
//
// MODEL_DIR is what `TutorialTokenizer.save_tfjs` wrote, or one language's folder of what
// `tf-wordpiece export --tfjs FOLDER` wrote (FOLDER/pt, FOLDER/en). In a browser, load it with
// tf.loadGraphModel(URL_OF_MODEL_JSON) instead; the call is the same.
import * as fs from "node:fs";
import * as path from "node:path";
import * as tf from "@tensorflow/tfjs";

// Production mode: no "looks like you are running TensorFlow.js in Node.js" banner (the pure-JavaScript
// backend is the point here) and no debug checks.
tf.enableProdMode();

async function loadModel(dir) {
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

// Strings -> {token_ids, starts, ends} per string; offsets are UTF-8 byte offsets.
async function tokenize({ model, signature }, strings) {
  const encoded = strings.map((s) => new TextEncoder().encode(s));
  const bytes = new Int32Array(encoded.reduce((n, e) => n + e.length, 0));
  let at = 0;
  for (const e of encoded) { bytes.set(e, at); at += e.length; }
  const keys = Object.keys(signature.outputs);
  const outputs = await model.executeAsync(
    { bytes: tf.tensor1d(bytes, "int32"), row_lengths: tf.tensor1d(encoded.map((e) => e.length), "int32") },
    keys.map((k) => signature.outputs[k].name));
  const flat = Object.fromEntries(keys.map((k, i) => [k, Array.from(outputs[i].dataSync())]));
  tf.dispose(outputs);
  let start = 0;
  return flat.row_lengths.map((n) => {
    const row = {};
    for (const k of ["token_ids", "starts", "ends"]) row[k] = flat[k].slice(start, start + n);
    start += n;
    return row;
  });
}

const [dir, ...args] = process.argv.slice(2);
const loaded = await loadModel(dir);
if (args[0] === "--json") {
  const strings = JSON.parse(fs.readFileSync(0, "utf8"));
  console.log(JSON.stringify(await tokenize(loaded, strings)));
} else {
  for (const row of await tokenize(loaded, args)) console.log(JSON.stringify(row));
}
