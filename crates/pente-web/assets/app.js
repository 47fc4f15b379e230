// The pente web board. The rules live in the server (POST /api/position
// replays every move list), the engine too (/api/analyze and its stream);
// this script draws what they answer and sends what is clicked.
"use strict";

const LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const state = {
  info: null,
  variant: "pente",
  size: 19,
  moves: [],        // the moves on the board, "K10" style
  view: null,       // the server's PositionView of them
  epoch: 0,         // bumped at every position change; stale answers are dropped
  thinking: false,  // the engine is choosing its move
  analysis: null,   // the latest analysis of this position
  stream: null,     // the live analysis' EventSource
  explorer: null,   // the explorer report of this position
  games: [],        // the server's loaded games
  viewer: null,     // { game, ply } when reviewing a loaded game
  graph: null,      // { moves, white_winrate }
};

function pointName(x, y) { return LETTERS[x] + (y + 1); }
function parsePoint(name) { return { x: LETTERS.indexOf(name[0]), y: parseInt(name.slice(1), 10) - 1 }; }
function pct(x) { return x == null ? "–" : (100 * x).toFixed(1) + " %"; }

async function api(path, body, raw) {
  const options = body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": raw ? "text/plain" : "application/json" },
    body: raw ? body : JSON.stringify(body),
  };
  const response = await fetch(path, options);
  const json = await response.json();
  if (!response.ok) throw new Error(json.error || response.statusText);
  return json;
}

function say(text, isError) {
  const message = $("message");
  message.textContent = text || "";
  message.className = isError ? "error" : "";
}

// ---- the engine's settings ----

function engineRequest(extra) {
  const request = { variant: state.variant, size: state.size, moves: state.moves.slice(), ...extra };
  const strength = $("strength").value;
  if (strength === "visits") request.visits = parseInt($("visits").value, 10) || 400;
  else if (strength === "seconds") request.seconds = parseFloat($("seconds").value) || 1;
  else request.level = parseInt(strength, 10);
  return request;
}

function fillSettings() {
  const info = state.info;
  const variant = $("variant");
  variant.innerHTML = "";
  for (const v of info.variants) variant.add(new Option(v.name, v.name));
  variant.value = state.variant;
  fillSizes();
  const strength = $("strength");
  for (const level of info.levels) {
    const option = new Option(`level ${level.level} (${level.visits} visits)`, String(level.level));
    option.title = level.describe;
    strength.add(option);
  }
  strength.add(new Option("visits…", "visits"));
  strength.add(new Option("time per move…", "seconds"));
  strength.value = String(info.default_level || 7);
  $("visits").value = info.default_visits;
}

function fillSizes() {
  const sizes = state.info.variants.find((v) => v.name === state.variant).sizes;
  const select = $("size");
  select.innerHTML = "";
  for (const s of sizes.slice().reverse()) select.add(new Option(`${s}×${s}`, String(s)));
  if (!sizes.includes(state.size)) state.size = sizes[sizes.length - 1];
  select.value = String(state.size);
}

// ---- the position ----

async function setPosition(moves, keepViewer) {
  const epoch = ++state.epoch;
  // A new position drops an engine move still being thought about.
  state.thinking = false;
  stopStream();
  state.analysis = null;
  if (!keepViewer) state.viewer = null;
  let view;
  try {
    view = await api("/api/position", { variant: state.variant, size: state.size, moves });
  } catch (error) {
    say(error.message, true);
    return false;
  }
  if (epoch !== state.epoch) return false;
  state.moves = moves;
  state.view = view;
  say("");
  render();
  refreshExplorer();
  if ($("analyze").checked) startStream();
  maybeEngineMove();
  return true;
}

// The human's seat: White is the first player (in D-Pente and Swap2 the
// one who places the opening stones; colours are chosen in the game).
function humanSeat() { return { white: "p1", black: "p2" }[$("human").value]; }

function humanToMove() {
  return $("human").value === "both" || !state.view || humanSeat() === state.view.actor;
}

async function play(point) {
  if (state.thinking || !state.view || state.view.result) return;
  if (!humanToMove()) { say("it is the engine's move"); return; }
  // A move of one's own leaves the game being reviewed.
  await setPosition(state.moves.concat([point]));
}

async function maybeEngineMove() {
  if ($("human").value === "both" || state.viewer || !state.view || state.view.result) return;
  if (state.view.actor !== humanSeat()) await engineMove();
}

async function engineMove() {
  if (state.thinking || !state.view || state.view.result) return;
  const epoch = state.epoch;
  state.thinking = true;
  render();
  try {
    const response = await api("/api/analyze", engineRequest());
    if (epoch !== state.epoch) return;
    state.thinking = false;
    if (response.best_move) {
      const proven = response.proven ? `, proven ${response.proven}` : "";
      if (await setPosition(state.moves.concat([response.best_move]))) {
        say(`engine played ${response.best_move} (its win rate ${pct(response.winrate)}${proven})`);
      }
    }
  } catch (error) {
    say(error.message, true);
  } finally {
    if (epoch === state.epoch) { state.thinking = false; render(); }
  }
}

function takeBack() {
  if (!state.moves.length) return;
  let n = 1;
  const human = $("human").value;
  // Against the engine, back to the human's own turn.
  if (human !== "both" && state.moves.length >= 2 && state.view && state.view.actor === humanSeat()) n = 2;
  if (state.viewer) state.viewer.ply = Math.max(0, state.viewer.ply - 1);
  state.thinking = false;
  setPosition(state.moves.slice(0, state.moves.length - n), Boolean(state.viewer));
}

// ---- live analysis ----

function stopStream() {
  if (state.stream) { state.stream.close(); state.stream = null; }
}

function startStream() {
  stopStream();
  if (!state.view || state.view.result) { renderAnalysis(); return; }
  const request = engineRequest({ policy: true });
  // A live analysis runs long, unless the user set a budget of his own.
  if (request.level) { delete request.level; request.visits = 20000; }
  const epoch = state.epoch;
  const source = new EventSource("/api/analyze/stream?request=" + encodeURIComponent(JSON.stringify(request)));
  state.stream = source;
  const take = (event) => {
    if (epoch !== state.epoch) { source.close(); return; }
    state.analysis = JSON.parse(event.data);
    render();
  };
  source.addEventListener("update", take);
  source.addEventListener("done", (event) => { take(event); source.close(); });
  source.addEventListener("failure", (event) => { say(JSON.parse(event.data).error, true); source.close(); });
  source.onerror = () => source.close();
}

// ---- drawing ----

function el(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function render() {
  renderBoard();
  renderStatus();
  renderAnalysis();
  renderMoves();
  renderGraph();
}

function renderBoard() {
  const svg = $("board");
  const n = state.size;
  svg.innerHTML = "";
  svg.setAttribute("viewBox", `0 0 ${n + 1} ${n + 1}`);
  const at = (p) => ({ cx: p.x + 1, cy: n - p.y });
  el("rect", { x: 0, y: 0, width: n + 1, height: n + 1, class: "wood" }, svg);
  for (let i = 0; i < n; i++) {
    el("line", { x1: 1, y1: i + 1, x2: n, y2: i + 1, class: "grid" }, svg);
    el("line", { x1: i + 1, y1: 1, x2: i + 1, y2: n, class: "grid" }, svg);
    const column = el("text", { x: i + 1, y: n + 0.75, class: "coord" }, svg);
    column.textContent = LETTERS[i];
    const row = el("text", { x: 0.4, y: n - i + 0.12, class: "coord" }, svg);
    row.textContent = String(i + 1);
  }
  const centre = (n - 1) / 2;
  el("circle", { cx: centre + 1, cy: n - centre, r: 0.12, class: "star" }, svg);
  const view = state.view;
  if (!view) return;
  // The opening rule's forbidden points (the tournament rule's zone).
  if (view.restricted.length && view.restricted.length < n * n - 1) {
    for (const name of view.restricted) {
      const p = at(parsePoint(name));
      el("rect", { x: p.cx - 0.5, y: p.cy - 0.5, width: 1, height: 1, class: "restricted" }, svg);
    }
  }
  const analysis = state.analysis;
  if ($("heatmap").checked && analysis && analysis.policy) {
    const top = Math.max(...analysis.policy.map((c) => c.prior), 0.001);
    for (const c of analysis.policy) {
      const p = at(parsePoint(c.move));
      el("rect", { x: p.cx - 0.5, y: p.cy - 0.5, width: 1, height: 1, class: "heat", "fill-opacity": (0.75 * c.prior / top).toFixed(3) }, svg);
    }
  }
  view.board.forEach((line, row) => {
    for (let x = 0; x < n; x++) {
      const c = line[x];
      if (c === ".") continue;
      const name = pointName(x, n - 1 - row);
      el("circle", { cx: x + 1, cy: row + 1, r: 0.46, class: c === "W" ? "stone white" : "stone black", "data-stone": c === "W" ? "white" : "black", "data-at": name }, svg);
    }
  });
  if (view.last_move) {
    const p = at(parsePoint(view.last_move));
    el("circle", { cx: p.cx, cy: p.cy, r: 0.14, class: "last" }, svg);
  }
  // The explorer's next moves, then the engine's candidates on top.
  if (state.explorer && state.explorer.next.length && !analysis) {
    for (const row of state.explorer.next.slice(0, 12)) {
      const p = at(parsePoint(row.key));
      el("circle", { cx: p.cx, cy: p.cy, r: 0.4, class: "explored" }, svg);
      const label = el("text", { x: p.cx, y: p.cy + 0.13, class: "label" }, svg);
      label.textContent = String(row.games);
    }
  }
  if (analysis) {
    const best = analysis.candidates.length ? analysis.candidates[0].move : null;
    for (const c of analysis.candidates.slice(0, 8)) {
      const p = at(parsePoint(c.move));
      el("circle", { cx: p.cx, cy: p.cy, r: 0.42, class: c.move === best ? "candidate best" : "candidate", "data-candidate": c.move }, svg);
      const label = el("text", { x: p.cx, y: p.cy + 0.13, class: "label" }, svg);
      label.textContent = c.winrate == null ? "·" : Math.round(100 * c.winrate);
    }
    if (analysis.proven_line && analysis.proven_line.length) {
      analysis.proven_line.slice(0, 9).forEach((name, i) => {
        const p = at(parsePoint(name));
        const label = el("text", { x: p.cx, y: p.cy - 0.25, class: "line-number" }, svg);
        label.textContent = String(i + 1);
      });
    }
  }
  // Click targets last, over everything.
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const name = pointName(x, y);
      const target = el("rect", { x: x + 0.5, y: n - y - 0.5, width: 1, height: 1, class: "target", "data-point": name }, svg);
      target.addEventListener("click", () => play(name));
    }
  }
}

function renderStatus() {
  const view = state.view;
  if (!view) return;
  const win = view.capture_win ? ` (${view.capture_win} win)` : "";
  $("captures").textContent = view.capture_win === null && !view.captured.white && !view.captured.black
    ? ""
    : `captured by White ${view.captured.white} · by Black ${view.captured.black}${win}`;
  let status;
  const mover = view.choice ? `${view.choice} to choose a colour` : `${view.to_move} to move`;
  if (view.result) status = view.result === "draw" ? `draw (${view.reason})` : `${view.result} wins by ${view.reason}`;
  else if (state.thinking) status = `${mover}: the engine is thinking…`;
  else status = `move ${view.moves.length + 1}: ${mover}`;
  // A pending colour choice is made with buttons, not on the board.
  const choices = $("choices");
  choices.replaceChildren();
  if (!view.result && view.choice && humanToMove() && !state.thinking) {
    for (const choice of view.choices) {
      const button = document.createElement("button");
      button.dataset.testid = "choice-" + choice;
      button.textContent = choice;
      choices.appendChild(button);
      button.addEventListener("click", () => play(choice));
    }
  }
  $("status").textContent = `${state.variant} ${state.size}×${state.size} · ${status}`;
  $("status").dataset.plies = String(view.moves.length);
}

function renderMoves() {
  const list = $("moves");
  list.innerHTML = "";
  state.moves.forEach((m, i) => {
    const item = document.createElement("span");
    item.textContent = (i % 2 === 0 ? `${i / 2 + 1}. ` : "") + m;
    item.className = "move";
    list.appendChild(item);
  });
}

function renderAnalysis() {
  const analysis = state.analysis;
  const body = $("candidates").tBodies[0];
  body.innerHTML = "";
  const summary = $("analysis-summary");
  if (!analysis) { summary.textContent = $("analyze").checked ? "searching…" : ""; return; }
  let text = `${analysis.visits} visits · best ${analysis.best_move || analysis.candidates[0]?.move || "–"} · win rate ${pct(analysis.winrate)}`;
  if (analysis.moves_to_end) {
    text += ` · proven ${analysis.proven} in ${analysis.moves_to_end}: ${analysis.proven_line.join(" ")}`;
  } else if (analysis.proven) {
    text += ` · proven ${analysis.proven}`;
  }
  summary.textContent = text;
  summary.dataset.visits = String(analysis.visits);
  for (const c of analysis.candidates.slice(0, 10)) {
    const row = body.insertRow();
    for (const value of [c.move, c.visits, pct(c.prior), pct(c.winrate)]) row.insertCell().textContent = value;
  }
}

// ---- the game viewer ----

function describeGame(g) {
  const result = g.result ? `${g.result} (${g.ending})` : "no result";
  return `${g.index + 1}. ${g.file}:${g.line} · ${g.variant} ${g.size} · ${result} · ${g.moves.length} moves`;
}

async function refreshGames(select) {
  const answer = await api("/api/games");
  state.games = answer.games;
  const list = $("game-list");
  list.innerHTML = "";
  for (const g of state.games) list.add(new Option(describeGame(g), String(g.index)));
  if (select !== undefined && state.games[select]) {
    list.value = String(select);
    await openGame(state.games[select]);
  }
  refreshExplorer();
}

async function openGame(game) {
  state.variant = game.variant;
  state.size = game.size;
  $("variant").value = game.variant;
  fillSizes();
  $("human").value = "both";
  state.graph = null;
  $("graph").hidden = true;
  state.viewer = { game, ply: game.moves.length };
  await showPly(game.moves.length);
}

async function showPly(ply) {
  const viewer = state.viewer;
  if (!viewer) return;
  viewer.ply = Math.max(0, Math.min(ply, viewer.game.moves.length));
  await setPosition(viewer.game.moves.slice(0, viewer.ply), true);
}

async function drawGraph() {
  const game = state.viewer ? state.viewer.game.moves : state.moves;
  try {
    say("computing the win-rate graph…");
    const graph = await api("/api/graph", { variant: state.variant, size: state.size, moves: game });
    state.graph = { moves: game.slice(), white_winrate: graph.white_winrate };
    say(`win-rate graph: ${graph.visits} visits a position, ${graph.evaluator}`);
    render();
  } catch (error) {
    say(error.message, true);
  }
}

function renderGraph() {
  const svg = $("graph");
  const graph = state.graph;
  if (!graph) { svg.hidden = true; return; }
  svg.hidden = false;
  svg.innerHTML = "";
  const n = Math.max(graph.white_winrate.length - 1, 1);
  const x = (i) => (300 * i) / n;
  const y = (w) => 100 - 100 * w;
  el("rect", { x: 0, y: 0, width: 300, height: 100, class: "graph-bg" }, svg);
  el("line", { x1: 0, y1: 50, x2: 300, y2: 50, class: "graph-mid" }, svg);
  const points = graph.white_winrate.map((w, i) => `${x(i).toFixed(2)},${y(w).toFixed(2)}`).join(" ");
  el("polyline", { points, class: "graph-line", "data-points": String(graph.white_winrate.length) }, svg);
  const ply = state.moves.length;
  if (ply <= n) el("line", { x1: x(ply), y1: 0, x2: x(ply), y2: 100, class: "graph-now" }, svg);
  svg.onclick = (event) => {
    const box = svg.getBoundingClientRect();
    const target = Math.round(((event.clientX - box.left) / box.width) * n);
    if (state.viewer) showPly(target);
    else setPosition(graph.moves.slice(0, target));
  };
}

async function upload(file) {
  try {
    const text = await file.text();
    const answer = await api("/api/games?name=" + encodeURIComponent(file.name), text, true);
    say(`${file.name}: ${answer.loaded} games loaded`);
    await refreshGames(answer.games.length - answer.loaded);
  } catch (error) {
    say(error.message, true);
  }
}

// ---- the opening explorer ----

async function refreshExplorer() {
  const body = $("explorer").tBodies[0];
  const summary = $("explorer-summary");
  if (!state.games.length && !state.info.book) {
    state.explorer = null;
    body.innerHTML = "";
    summary.textContent = "load games to explore their openings";
    return;
  }
  const epoch = state.epoch;
  const query = new URLSearchParams({ variant: state.variant, size: String(state.size), moves: state.moves.join(" ") });
  let report;
  try {
    report = await api("/api/explorer?" + query);
  } catch (error) {
    summary.textContent = error.message;
    return;
  }
  if (epoch !== state.epoch) return;
  renderBook(report.book);
  state.explorer = report.explorer;
  body.innerHTML = "";
  const reached = report.explorer.positions.reduce((sum, row) => sum + row.games, 0);
  summary.textContent = `${reached} of ${report.games_counted} games reached this position (mirror images counted)`;
  summary.dataset.games = String(reached);
  for (const row of report.explorer.next) {
    const tr = body.insertRow();
    tr.dataset.move = row.key;
    for (const value of [row.key, row.games, row.share_pct + " %", row.white_pct + " %", row.black_pct + " %", row.mover_win_pct + " %"]) {
      tr.insertCell().textContent = value;
    }
    tr.addEventListener("click", () => play(row.key));
  }
  renderBoard();
}

// The book's node for this position, beside the loaded games' numbers.
function renderBook(node) {
  const table = $("book");
  const body = table.tBodies[0];
  const summary = $("book-summary");
  body.innerHTML = "";
  const book = state.info.book;
  if (!book) { table.hidden = true; summary.textContent = ""; return; }
  const percent = (x) => (100 * x).toFixed(1) + " %";
  const score = (s, games) => games ? `${percent(s.score)} (${(100 * s.low).toFixed(1)}-${(100 * s.high).toFixed(1)})` : "-";
  if (!node) {
    table.hidden = true;
    summary.textContent = `book (${book.variant} ${book.size}x${book.size}): this position is not in it`;
    return;
  }
  table.hidden = false;
  summary.textContent = `book (${book.player}): ${node.tally.games} games from here, White's score ${score(node.white_score, node.tally.games)}; best line ${node.best_line || "-"}`;
  summary.dataset.games = String(node.tally.games);
  for (const child of node.children) {
    const tr = body.insertRow();
    tr.dataset.move = child.point;
    const value = child.value === null ? "-" : (child.value >= 0 ? "+" : "") + child.value.toFixed(3);
    for (const cell of [child.point, child.tally.games, score(child.white_score, child.tally.games), value, child.prior.toFixed(3)]) {
      tr.insertCell().textContent = cell;
    }
    tr.addEventListener("click", () => play(child.point));
  }
}

// ---- export ----

async function exportPgn() {
  const response = await fetch("/api/pgn", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ variant: state.variant, size: state.size, moves: state.moves }),
  });
  if (!response.ok) { say((await response.json()).error, true); return; }
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = "game.pgn";
  link.click();
  URL.revokeObjectURL(link.href);
}

// ---- wiring ----

async function main() {
  try {
    state.info = await api("/api/info");
  } catch (error) {
    say("the server does not answer: " + error.message, true);
    return;
  }
  fillSettings();
  $("variant").onchange = () => { state.variant = $("variant").value; fillSizes(); setPosition([]); };
  $("size").onchange = () => { state.size = parseInt($("size").value, 10); setPosition([]); };
  $("human").onchange = () => maybeEngineMove();
  $("strength").onchange = () => {
    $("visits-label").hidden = $("strength").value !== "visits";
    $("seconds-label").hidden = $("strength").value !== "seconds";
    if ($("analyze").checked) startStream();
  };
  $("new-game").onclick = () => { state.graph = null; $("game-list").value = ""; setPosition([]); };
  $("take-back").onclick = takeBack;
  $("engine-move").onclick = engineMove;
  $("export").onclick = exportPgn;
  $("analyze").onchange = () => { if ($("analyze").checked) startStream(); else { stopStream(); state.analysis = null; render(); } };
  $("heatmap").onchange = renderBoard;
  $("upload").onchange = () => { if ($("upload").files[0]) upload($("upload").files[0]); };
  $("game-list").onchange = () => { const g = state.games[parseInt($("game-list").value, 10)]; if (g) openGame(g); };
  $("first").onclick = () => showPly(0);
  $("back").onclick = () => showPly((state.viewer?.ply ?? 0) - 1);
  $("forward").onclick = () => showPly((state.viewer?.ply ?? 0) + 1);
  $("last").onclick = () => showPly(Infinity);
  $("graph-button").onclick = drawGraph;
  document.addEventListener("keydown", (event) => {
    if (!state.viewer || event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
    if (event.key === "ArrowLeft") showPly(state.viewer.ply - 1);
    if (event.key === "ArrowRight") showPly(state.viewer.ply + 1);
  });
  await refreshGames();
  await setPosition([]);
}

main();
