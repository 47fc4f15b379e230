// `pente serve` in a real browser: Debian's chromium, driven by
// playwright-core. Run from the repository root after a release build:
//   npm --prefix crates/pente-web/browser test
// PENTE_BIN names the binary (default target/release/pente), CHROMIUM the
// browser (default /usr/bin/chromium); SCREENSHOT=DIR also saves the
// README's pictures there.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { request as httpRequest } from "node:http";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startServer as startPente } from "./server.mjs";

// Paths are the repository root's, wherever npm runs this from.
process.chdir(fileURLToPath(new URL("../../..", import.meta.url)));

const BIN = process.env.PENTE_BIN || "target/release/pente";
const SAMPLE = "data/sample-games.pgn";
const SCREENSHOT = process.env.SCREENSHOT;
// The heuristic keeps the engine fast and the same on every machine;
// PENTE_MODEL=data/models/default shows the shipped network instead.
const MODEL = process.env.PENTE_MODEL || "heuristic";

let server;
let address; // the server's root, without the token
let pageUrl; // the URL `pente serve` printed, with its token
let token;
let browser;

// The server on a free port, with the sample games; the heuristic keeps
// the engine fast and the same on every machine.
function startServer(args) {
  return startPente(BIN, ["--games", SAMPLE, ...args]);
}

// The API as a script calls it: with the token in its header.
function api(path, options = {}) {
  return fetch(address + path, { ...options, headers: { ...options.headers, "x-pente-token": token } });
}

// A request with headers a browser would not let a page set (Host).
function raw(path, headers) {
  const { hostname, port } = new URL(address);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, method: "POST", headers }, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode, body }));
    });
    req.on("error", reject);
    req.end('{"moves": ["K10"], "visits": 10}');
  });
}

before(async () => {
  ({ child: server, url: pageUrl, address, token } = await startServer(["--model", MODEL, "--level", "4"]));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
});

after(async () => {
  await browser?.close();
  server?.kill();
});

async function openPage() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(pageUrl);
  await page.waitForSelector('[data-point="K10"]');
  return { page, errors };
}

const plies = (page) => page.locator('[data-testid="status"]').getAttribute("data-plies");

test("a click plays a move and the engine answers on the board", async () => {
  const { page, errors } = await openPage();
  assert.match(await page.textContent('[data-testid="status"]'), /white to move/);
  await page.click('[data-point="K10"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]').dataset.plies === "2");
  assert.equal(await page.locator('[data-stone="white"][data-at="K10"]').count(), 1);
  assert.equal(await page.locator('[data-stone="black"]').count(), 1);
  assert.match(await page.textContent('[data-testid="message"]'), /engine played [A-T]\d+/);
  // Move 3 under the tournament rule: the zone around the centre is shown,
  // and a move into it is refused with the rules' reason.
  assert.ok((await page.locator(".restricted").count()) > 0, "the tournament rule's zone");
  await page.click('[data-point="K11"]');
  // The refusal comes back from the server: wait for it, not just the click.
  await page.waitForFunction(() => /K11/.test(document.querySelector('[data-testid="message"]').textContent));
  assert.equal(await plies(page), "2");
  // Take back returns to White's first move.
  await page.click('[data-testid="take-back"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]').dataset.plies === "0");
  assert.deepEqual(errors, []);
  await page.close();
});

test("colour choices: the opener places the stones, the chooser's buttons swap, stay or pass", async () => {
  const { page, errors } = await openPage();
  const waitPlies = (n) => page.waitForFunction((k) => document.querySelector('[data-testid="status"]').dataset.plies === String(k), n);
  // Swap2 with both sides human: three stones, then the three choices.
  await page.selectOption('[data-testid="human"]', "both");
  await page.selectOption('[data-testid="variant"]', "swap2-pente");
  await page.waitForFunction(() => /swap2-pente/.test(document.querySelector('[data-testid="status"]').textContent));
  for (const [i, point] of ["A1", "B1", "C1"].entries()) {
    await page.click(`[data-point="${point}"]`);
    await waitPlies(i + 1);
  }
  assert.match(await page.textContent('[data-testid="status"]'), /p2 to choose a colour/);
  assert.equal(await page.locator('[data-testid="choices"] button').count(), 3);
  await page.click('[data-testid="choice-pass"]');
  await waitPlies(4);
  assert.equal(await page.locator('[data-testid="choices"] button').count(), 0);
  assert.match(await page.textContent('[data-testid="moves"]'), /pass/);
  // D-Pente against the engine: the human places four stones, the engine chooses.
  await page.selectOption('[data-testid="human"]', "white");
  await page.selectOption('[data-testid="variant"]', "d-pente");
  await page.waitForFunction(() => /d-pente/.test(document.querySelector('[data-testid="status"]').textContent));
  for (const point of ["K10", "L10", "K12", "M11"]) {
    const before = Number(await plies(page));
    await page.click(`[data-point="${point}"]`);
    await waitPlies(before + 1);
  }
  await page.waitForFunction(() => /engine played (swap|stay)|engine played [A-T]\d+/.test(document.querySelector('[data-testid="message"]').textContent));
  assert.match(await page.textContent('[data-testid="moves"]'), /swap|stay/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the live analysis streams candidates onto the board", async () => {
  const { page, errors } = await openPage();
  await page.selectOption('[data-testid="human"]', "both");
  await page.click('[data-point="K10"]');
  await page.click('[data-point="L9"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]').dataset.plies === "2");
  await page.check('[data-testid="analyze"]');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="analysis-summary"]').dataset.visits) >= 200);
  assert.ok((await page.locator('[data-testid="candidates"] tbody tr').count()) > 0);
  assert.ok((await page.locator("[data-candidate]").count()) > 0);
  await page.check('[data-testid="heatmap"]');
  assert.ok((await page.locator(".heat").count()) > 0);
  if (SCREENSHOT) await page.screenshot({ path: `${SCREENSHOT}/web-analysis.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test("a loaded game steps through, and its graph draws", async () => {
  const { page, errors } = await openPage();
  const games = JSON.parse(execFileSync(BIN, ["stats", SAMPLE, "--format", "json"]).toString());
  assert.ok(games.games_read > 0);
  assert.equal(await page.locator('[data-testid="game-list"] option').count(), games.games_read);
  await page.selectOption('[data-testid="game-list"]', "0");
  const first = await (await api("api/games")).json();
  const length = first.games[0].moves.length;
  await page.waitForFunction((n) => document.querySelector('[data-testid="status"]').dataset.plies === String(n), length);
  await page.click('[data-testid="first"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]').dataset.plies === "0");
  for (let i = 1; i <= 3; i++) {
    await page.click('[data-testid="forward"]');
    await page.waitForFunction((n) => document.querySelector('[data-testid="status"]').dataset.plies === String(n), i);
  }
  assert.equal(await page.locator("[data-stone]").count(), 3);
  const third = first.games[0].moves[2];
  assert.equal(await page.locator(`[data-stone="white"][data-at="${third}"]`).count(), 1);
  await page.click('[data-testid="graph-button"]');
  await page.waitForSelector('#graph polyline');
  assert.equal(await page.locator("#graph polyline").getAttribute("data-points"), String(length + 1));
  if (SCREENSHOT) await page.screenshot({ path: `${SCREENSHOT}/web-viewer.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test("an uploaded game file joins the list; a bad one is refused with its line", async () => {
  // A server of its own: the other tests count the sample file's games.
  const own = await startServer(["--model", "heuristic"]);
  try {
    const page = await browser.newPage();
    await page.goto(own.url);
    await page.waitForSelector('[data-point="K10"]');
    const before = await page.locator('[data-testid="game-list"] option').count();
    await page.setInputFiles('[data-testid="upload"]', { name: "more.pgn", mimeType: "text/plain", buffer: readFileSync(SAMPLE) });
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="game-list"] option').length === n, 2 * before);
    await page.setInputFiles('[data-testid="upload"]', { name: "bad.csv", mimeType: "text/plain", buffer: Buffer.from("hello\n") });
    await page.waitForFunction(() => document.querySelector('[data-testid="message"]').textContent.includes("bad.csv:1"));
    assert.equal(await page.locator('[data-testid="game-list"] option').count(), 2 * before);
    await page.close();
  } finally {
    own.child.kill();
  }
});

test("the explorer shows the numbers of pente stats", async () => {
  const { page, errors } = await openPage();
  await page.selectOption('[data-testid="human"]', "both");
  await page.click('[data-point="K10"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]').dataset.plies === "1");
  const stats = JSON.parse(execFileSync(BIN, ["stats", SAMPLE, "--moves", "K10", "--variant", "pente", "--size", "19",
    "--top", "0", "--format", "json"]).toString());
  const expected = stats.explorer.next;
  assert.ok(expected.length > 0, "the sample games go on from K10");
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="explorer"] tbody tr').length === n, expected.length);
  const rows = await page.$$eval('[data-testid="explorer"] tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.deepEqual(rows, expected.map((r) => [r.key, String(r.games), `${r.share_pct} %`, `${r.white_pct} %`, `${r.black_pct} %`, `${r.mover_win_pct} %`]));
  // Clicking a row plays its move.
  await page.click(`[data-testid="explorer"] tbody tr[data-move="${expected[0].key}"]`);
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]').dataset.plies === "2");
  assert.deepEqual(errors, []);
  await page.close();
});

test("the explorer shows the opening book's numbers, and the engine plays from the book", async () => {
  const BOOK = "data/books/pente.sqlite";
  const own = await startServer(["--model", "heuristic", "--level", "3", "--book", BOOK]);
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(own.url);
    await page.waitForSelector('[data-point="K10"]');
    await page.selectOption('[data-testid="human"]', "both");
    await page.click('[data-point="K10"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="status"]').dataset.plies === "1");
    const node = JSON.parse(execFileSync(BIN, ["book", "show", BOOK, "--moves", "K10", "--top", "0", "--format", "json"]).toString());
    assert.ok(node.children.length > 0, "the book goes on from K10");
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="book"] tbody tr').length === n, node.children.length);
    const rows = await page.$$eval('[data-testid="book"] tbody tr', (trs) => trs.map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent]));
    assert.deepEqual(rows, node.children.map((c) => [c.point, String(c.tally.games)]));
    assert.equal(await page.getAttribute('[data-testid="book-summary"]', "data-games"), String(node.tally.games));
    // The engine's move in the book is the book's best line.
    const answer = await fetch(own.address + "api/analyze", {
      method: "POST",
      headers: { "x-pente-token": own.token },
      body: JSON.stringify({ moves: ["K10"], visits: 8 }),
    }).then((r) => r.json());
    assert.equal(answer.book, true);
    assert.equal(answer.best_move, node.best_line.split(" ")[0]);
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    own.child.kill();
  }
});

test("requests without the token, from another site or under another name are refused", async () => {
  assert.equal((await fetch(address + "api/info")).status, 401);
  assert.equal((await fetch(address)).status, 401);
  const good = { "x-pente-token": token, "content-type": "text/plain" };
  assert.equal((await raw("/api/analyze", good)).status, 200);
  const cross = await raw("/api/analyze", { ...good, origin: "http://evil.example" });
  assert.equal(cross.status, 403);
  assert.match(JSON.parse(cross.body).error, /evil\.example/);
  const rebound = await raw("/api/analyze", { ...good, host: `evil.example:${new URL(address).port}` });
  assert.equal(rebound.status, 403);
  assert.equal((await raw("/api/analyze", { "content-type": "text/plain" })).status, 401);
});

test("the API answers bad requests with a JSON error and keeps serving", async () => {
  const post = (path, body) => api(path, { method: "POST", body });
  for (const [path, body, words] of [
    ["api/analyze", "{", "not JSON"],
    ["api/analyze", '{"moves": ["K10", "K10"]}', "move 2"],
    ["api/analyze", '{"variant": "chess"}', "chess"],
    ["api/position", '{"size": 4}', "4"],
    ["api/graph", '{"moves": ["Z1"]}', "Z1"],
    ["api/games?name=bad.csv", "hello", "bad.csv:1"],
  ]) {
    const response = await post(path, body);
    assert.equal(response.status, 400, `${path} ${body}`);
    assert.match((await response.json()).error, new RegExp(words), `${path} ${body}`);
  }
  assert.equal((await api("api/nothing")).status, 404);
  const ok = await post("api/analyze", '{"id": 7, "moves": ["K10"], "visits": 50}');
  assert.equal(ok.status, 200);
  const answer = await ok.json();
  assert.equal(answer.id, 7);
  assert.equal(answer.visits, 50);
  const pgn = await (await post("api/pgn", '{"moves": ["K10", "L9"], "white": "me"}')).text();
  assert.match(pgn, /\[White "me"\]/);
  assert.match(pgn, /1\. K10 L9/);
});

test("several tabs analyse at once; a closed one stops its search", async () => {
  const request = (visits) => encodeURIComponent(JSON.stringify({ moves: ["K10"], visits }));
  const long = new AbortController();
  const stream = await api(`api/analyze/stream?request=${request(1000000)}`, { signal: long.signal });
  const reader = stream.body.getReader();
  const { value } = await reader.read();
  assert.match(new TextDecoder().decode(value), /event: update/);
  // A second search is served while the first runs, and the first stops
  // once its client goes away.
  const started = Date.now();
  const quick = await (await api("api/analyze", { method: "POST", body: '{"moves": ["K10"], "visits": 300}' })).json();
  assert.equal(quick.visits, 300);
  assert.equal((await (await api("api/info")).json()).searches_running, 1);
  long.abort();
  let running = 1;
  for (let i = 0; i < 100 && running > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    running = (await (await api("api/info")).json()).searches_running;
  }
  assert.equal(running, 0, "the search of the closed connection stopped");
  assert.ok(Date.now() - started < 60000);
});
