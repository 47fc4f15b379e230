// A load test of `pente serve` on loopback: CLIENTS clients for DURATION
// seconds, each in turn streaming a live analysis that it drops half way,
// asking for positions, opening the explorer, running short analyses and
// uploading a game file. It stops by itself, then checks that the server
// still answers, and prints requests per second, p50/p99 latency per kind,
// errors, and the server's memory (resident set) over the run.
//
//   node crates/pente-web/browser/load.mjs            (from the repository root)
//   CLIENTS=32 DURATION=60 node crates/pente-web/browser/load.mjs
//   CLIENTS=32 KINDS=position node crates/pente-web/browser/load.mjs
//   DURATION=0 FAIRNESS=8 node crates/pente-web/browser/load.mjs
//
// KINDS keeps some of the request kinds (stream, position, explorer,
// analyze, upload). FAIRNESS=N then starts N analyses of the same position
// and budget (FAIR_VISITS, default 3000) at once and prints the slowest's
// time over the fastest's.
//
// PENTE_BIN names the binary (default target/release/pente). Exits 1 on any
// error other than a 429 (the server's limit on searches at once), or if the
// server stops answering.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { startServer } from "./server.mjs";

process.chdir(fileURLToPath(new URL("../../..", import.meta.url)));

const BIN = process.env.PENTE_BIN || "target/release/pente";
const CLIENTS = Number(process.env.CLIENTS || 16);
const SECONDS = Number(process.env.DURATION || 20);
const SAMPLE = "data/sample-games.pgn";

const { child, address: root, token } = await startServer(BIN, ["--model", "heuristic", "--games", SAMPLE, "--level", "4"]);
const headers = { "x-pente-token": token };

// The server's resident memory, in MiB, sampled every half second.
function rss() {
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  return Number(status.match(/VmRSS:\s+(\d+)/)[1]) / 1024;
}
const memory = [];
const sampler = setInterval(() => memory.push(rss()), 500);

const latencies = {}; // kind -> milliseconds
const errors = {}; // "kind status" -> count
let throttled = 0;

async function timed(kind, run) {
  const start = performance.now();
  try {
    const status = await run();
    if (status === 429) throttled++;
    else if (status >= 400) errors[`${kind} ${status}`] = (errors[`${kind} ${status}`] || 0) + 1;
  } catch (error) {
    errors[`${kind} ${error.name}`] = (errors[`${kind} ${error.name}`] || 0) + 1;
  }
  (latencies[kind] ||= []).push(performance.now() - start);
}

const moves = ["K10", "L9", "K13", "M10", "J12", "L11"];
const sampleText = readFileSync(SAMPLE);

// A live analysis read for a few events, then dropped mid-stream.
async function stream(i) {
  const request = encodeURIComponent(JSON.stringify({ moves: moves.slice(0, 1 + (i % moves.length)), visits: 100000 }));
  const abort = new AbortController();
  const response = await fetch(`${root}api/analyze/stream?request=${request}`, { headers, signal: abort.signal });
  if (response.status !== 200) return response.status;
  const reader = response.body.getReader();
  for (let events = 0; events < 2; ) {
    const { value, done } = await reader.read();
    if (done) break;
    events += (new TextDecoder().decode(value).match(/event: update/g) || []).length;
  }
  abort.abort();
  return 200;
}

const kinds = [
  ["stream", stream],
  ["position", async (i) => (await post("api/position", { moves: moves.slice(0, i % moves.length) })).status],
  ["explorer", async () => (await fetch(`${root}api/explorer?variant=pente&size=19&moves=K10`, { headers })).status],
  ["analyze", async (i) => (await post("api/analyze", { moves: moves.slice(0, 1 + (i % 3)), visits: 200 })).status],
  ["upload", async (i) => (await fetch(`${root}api/games?name=load-${i % 4}.pgn`, { method: "POST", headers, body: sampleText })).status],
];

async function post(path, body) {
  const response = await fetch(root + path, { method: "POST", headers, body: JSON.stringify(body) });
  await response.arrayBuffer();
  return response;
}

const only = (process.env.KINDS || "").split(",").filter(Boolean);
const chosen = only.length ? kinds.filter(([kind]) => only.includes(kind)) : kinds;
if (chosen.length === 0) throw new Error(`KINDS=${process.env.KINDS}: none of ${kinds.map(([k]) => k).join(", ")}`);

const end = Date.now() + SECONDS * 1000;
const started = performance.now();
let requests = 0;
await Promise.all(
  Array.from({ length: CLIENTS }, async (_, client) => {
    for (let i = client; Date.now() < end; i++) {
      const [kind, run] = chosen[i % chosen.length];
      await timed(kind, () => run(i));
      requests++;
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;

// Fairness: equal searches started together should end close together.
const FAIRNESS = Number(process.env.FAIRNESS || 0);
let fairness = null;
if (FAIRNESS > 0) {
  const visits = Number(process.env.FAIR_VISITS || 3000);
  const times = await Promise.all(
    Array.from({ length: FAIRNESS }, async () => {
      const start = performance.now();
      const response = await post("api/analyze", { moves: ["K10", "L9"], visits });
      if (response.status !== 200) errors[`fairness ${response.status}`] = (errors[`fairness ${response.status}`] || 0) + 1;
      return performance.now() - start;
    }),
  );
  fairness = { visits, fastest: Math.min(...times), slowest: Math.max(...times) };
}
clearInterval(sampler);

// The server keeps serving after all of that.
const after = await fetch(`${root}api/info`, { headers });
const running = (await after.json()).searches_running;
// Dropped streams stop at their next slice.
let left = running;
for (let i = 0; i < 100 && left > 0; i++) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  left = (await (await fetch(`${root}api/info`, { headers })).json()).searches_running;
}
child.kill();

const percentile = (values, p) => values.toSorted((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))];
console.log(`${CLIENTS} clients, ${elapsed.toFixed(1)} s: ${requests} requests, ${(requests / Math.max(elapsed, 1e-9)).toFixed(1)} per second`);
console.log(`${"kind".padEnd(10)} ${"requests".padStart(8)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)}`);
for (const [kind, values] of Object.entries(latencies)) {
  console.log(
    `${kind.padEnd(10)} ${String(values.length).padStart(8)} ${percentile(values, 0.5).toFixed(1).padStart(8)} ${percentile(values, 0.99).toFixed(1).padStart(8)}`,
  );
}
const half = Math.floor(memory.length / 2);
const peak = (values) => Math.max(...values).toFixed(1);
console.log(
  `server memory (MiB): start ${memory[0]?.toFixed(1)}, peak of the first half ${peak(memory.slice(0, half))}, of the second ${peak(memory.slice(half))}, end ${memory.at(-1)?.toFixed(1)}`,
);
console.log(`429 (too many searches): ${throttled}; errors: ${JSON.stringify(errors)}`);
if (fairness) {
  const { visits, fastest, slowest } = fairness;
  console.log(
    `fairness: ${FAIRNESS} analyses of ${visits} visits at once: fastest ${fastest.toFixed(0)} ms, slowest ${slowest.toFixed(0)} ms (${(slowest / fastest).toFixed(2)}x)`,
  );
}
console.log(`after the run: /api/info ${after.status}, searches still running ${running}, ${left} a few seconds later`);
const failed = Object.keys(errors).length > 0 || after.status !== 200 || left > 0;
process.exit(failed ? 1 : 0);
