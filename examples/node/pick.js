#!/usr/bin/env node
// Pick legal Baloot moves with an exported policy: a starting point for a game server.
//
//   node pick.js MODEL.onnx POSITIONS.json
//
// MODEL.onnx comes from `python -m eval export --policy BUNDLE --out MODEL.onnx`, which writes
// MODEL.manifest.json beside it. POSITIONS.json is {"observations": [[697 floats], ...],
// "masks": [[42 ints, nonzero = legal], ...]}, the vectors the Python environment produces
// (baloot_env.observation.encode and action_mask). Prints one JSON line:
// {"policy": NAME, "actions": [id, ...], "values": [v, ...]}.
//
// The model is verified before it is used: its SHA-256 must match the manifest, and the
// manifest's observation and action versions must be the ones this program was written for.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const OBS_VERSION = 1; // baloot_env.observation.OBS_VERSION this program encodes for
const ACTION_VERSION = 1; // baloot_env.actions.ACTION_VERSION (R9: 0-31 cards, 32-41 calls)
const NUM_ACTIONS = 42;

class PolicyError extends Error {}

function manifestPath(modelPath) {
  const parsed = path.parse(modelPath);
  return path.join(parsed.dir, `${parsed.name}.manifest.json`);
}

function verify(modelPath) {
  const mpath = manifestPath(modelPath);
  if (!fs.existsSync(modelPath)) throw new PolicyError(`model ${modelPath} does not exist`);
  if (!fs.existsSync(mpath)) throw new PolicyError(`model ${modelPath} has no manifest ${mpath}`);
  const manifest = JSON.parse(fs.readFileSync(mpath, 'utf8'));
  const digest = crypto.createHash('sha256').update(fs.readFileSync(modelPath)).digest('hex');
  if (!manifest.onnx || digest !== manifest.onnx.sha256) {
    throw new PolicyError(`model ${modelPath} has SHA-256 ${digest.slice(0, 12)}..., its manifest says ${String(manifest.onnx && manifest.onnx.sha256).slice(0, 12)}...: corrupt or replaced`);
  }
  if (manifest.obs_version !== OBS_VERSION) {
    throw new PolicyError(`model was made for obs_version ${manifest.obs_version}; this program encodes version ${OBS_VERSION}`);
  }
  if (manifest.action_version !== ACTION_VERSION) {
    throw new PolicyError(`model was made for action_version ${manifest.action_version}; this program knows version ${ACTION_VERSION}`);
  }
  return manifest;
}

async function loadPolicy(modelPath) {
  const manifest = verify(modelPath);
  const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  return { manifest, session, obsSize: manifest.obs_size };
}

// The legal action with the largest logit for every row (the model already masks illegal ones).
async function pick(policy, observations, masks) {
  const n = observations.length;
  if (masks.length !== n) throw new PolicyError(`${n} observations but ${masks.length} masks`);
  const obs = new Float32Array(n * policy.obsSize);
  const mask = new Int8Array(n * NUM_ACTIONS);
  for (let i = 0; i < n; i++) {
    if (observations[i].length !== policy.obsSize) throw new PolicyError(`observation ${i} has ${observations[i].length} floats, the model needs ${policy.obsSize}`);
    if (masks[i].length !== NUM_ACTIONS) throw new PolicyError(`mask ${i} has ${masks[i].length} entries, not ${NUM_ACTIONS}`);
    if (!masks[i].some((m) => m !== 0)) throw new PolicyError(`mask ${i} has no legal action`);
    obs.set(observations[i], i * policy.obsSize);
    mask.set(masks[i].map((m) => (m !== 0 ? 1 : 0)), i * NUM_ACTIONS);
  }
  const out = await policy.session.run({
    observation: new ort.Tensor('float32', obs, [n, policy.obsSize]),
    mask: new ort.Tensor('int8', mask, [n, NUM_ACTIONS]),
  });
  const logits = out.logits.data;
  const actions = [];
  for (let i = 0; i < n; i++) {
    let best = -1;
    for (let a = 0; a < NUM_ACTIONS; a++) {
      if (mask[i * NUM_ACTIONS + a] && (best < 0 || logits[i * NUM_ACTIONS + a] > logits[i * NUM_ACTIONS + best])) best = a;
    }
    actions.push(best);
  }
  return { actions, values: Array.from(out.value.data) };
}

async function main(argv) {
  if (argv.length !== 2) {
    console.error('usage: node pick.js MODEL.onnx POSITIONS.json');
    return 2;
  }
  try {
    const policy = await loadPolicy(argv[0]);
    console.error(`loaded policy ${policy.manifest.name}: onnx sha256 ${policy.manifest.onnx.sha256.slice(0, 12)}..., obs_version ${OBS_VERSION}`);
    const data = JSON.parse(fs.readFileSync(argv[1], 'utf8'));
    const { actions, values } = await pick(policy, data.observations, data.masks);
    console.log(JSON.stringify({ policy: policy.manifest.name, actions, values }));
    return 0;
  } catch (e) {
    if (e instanceof PolicyError) {
      console.error(`error: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

module.exports = { loadPolicy, pick, verify, PolicyError };

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
