// tabula serve: the page's script. It draws the state the server sends (board cells, legal
// moves with the cells that enter them, last move, result, engine thinking, solver values,
// the game's tree of moves and variations with every position's score) and posts what is
// clicked. No rule of any game is here: the server decides what is legal, reads and writes
// the records. The state comes only from the game's event stream (one EventSource, for the
// game on show: closed when another is shown), in order: `state` replaces it, `live` updates
// the engine, the solver and some nodes' scores on top of it. A POST's answer is only its
// outcome (an error is shown; a new game's id is followed), so no answer races the stream.
"use strict";

const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let S = null; // the latest state from the server
let sid = sessionStorage.getItem("tabula-session");
let feed = null; // the EventSource of the game on show
let sel = null; // chess: the selected square, "r,c"
let hover = null; // Domineering: the hovered cell, "r,c"
let lastBoard = ""; // the board's HTML as last drawn
let view = "play"; // the setup shown: "play" (a person against an engine) or "match" (watch)
let CFG = null; // the server's configuration

const PIECES = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
const key = (cell) => cell[0] + "," + cell[1];
// Text from the server (engine names, moves) as HTML.
const esc = (t) => String(t).replace(/[&<>"']/g, (ch) => "&#" + ch.charCodeAt(0) + ";");

async function call(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  const r = await fetch(path, init);
  let data;
  try {
    data = await r.json();
  } catch (e) {
    data = { error: "HTTP " + r.status };
  }
  if (!r.ok || data.error) throw new Error(data.error || "HTTP " + r.status);
  return data;
}

function showError(e) {
  $("error").textContent = e ? String(e.message || e) : "";
}

// Posts an action: its answer, or null after an error (shown). An answer about a game no
// longer on show (a settings change posted just before "Start match", say) is dropped, and
// so is its error.
async function act(path, body) {
  const about = body && body.id;
  try {
    const r = await call(path, body);
    if (about && about !== sid) return null;
    showError(null);
    return r;
  } catch (e) {
    if (!about || about === sid) showError(e);
    return null;
  }
}

// Shows game `id`: its stream replaces the last game's.
function show(id) {
  sid = id;
  sessionStorage.setItem("tabula-session", sid);
  if (feed) feed.close();
  const es = new EventSource("/api/events?id=" + encodeURIComponent(id));
  feed = es;
  es.addEventListener("state", (ev) => { if (feed === es) adopt(JSON.parse(ev.data)); });
  es.addEventListener("live", (ev) => { if (feed === es) merge(JSON.parse(ev.data)); });
  es.addEventListener("closed", () => {
    if (feed !== es) return;
    es.close();
    showError("this game was closed: start a new game");
  });
  // After a drop the browser reconnects by itself, with the last id it had
  // (Last-Event-ID); a refusal (the game is gone) closes the stream for good.
  es.onerror = () => {
    if (feed === es && es.readyState === EventSource.CLOSED) {
      showError("no game " + id + " (closed, or expired after 15 minutes): start a new game");
    }
  };
}

// The whole state of the game on show.
function adopt(st) {
  const fresh = !S || st.id !== S.id;
  S = st;
  if (fresh) {
    sel = null;
    syncControls();
    // An export belongs to the game it was made of.
    $("download").hidden = true;
  }
  render();
}

// A small change on top of the state of the same `major` version.
function merge(m) {
  if (!S || m.major !== S.major || m.version <= S.version) return;
  S.version = m.version;
  S.engine = m.engine;
  S.exact = m.exact;
  if (m.nodes.length) {
    const t = treeOf(S);
    for (const n of m.nodes) {
      const node = t.get(n.id);
      if (node) Object.assign(node, n);
    }
  }
  render();
}

function setupBody() {
  const body = {
    game: $("game").value,
    size: $("size").value,
    width: $("width").value,
    height: $("height").value,
    rows: $("rows").value,
    cols: $("cols").value,
    first: $("first").value,
    human: $("human").value,
    movetime: $("movetime").value,
    engine: Number($("engine").value || 0),
    level: Number($("level").value),
    exact: $("exact").checked,
  };
  if (view === "match") {
    delete body.engine;
    body.human = "none";
    body.engine1 = Number($("engine-a").value || 0);
    body.engine2 = Number($("engine-b").value || 0);
    body.match = Number($("games").value || 1);
  }
  return body;
}

// Shows the controls of one view: playing, or watching a match.
function setView(v) {
  view = v;
  $("view-play").classList.toggle("on", v === "play");
  $("view-match").classList.toggle("on", v === "match");
  for (const el of document.querySelectorAll(".play-only")) el.hidden = v !== "play";
  for (const el of document.querySelectorAll(".match-only")) el.hidden = v !== "match";
  $("new").hidden = v === "match";
  levelUsable();
}

// The level is tabula's own knob: usable when tabula plays.
function levelUsable() {
  if (!CFG) return;
  const ids = view === "match" ? [$("engine-a").value, $("engine-b").value] : [$("engine").value];
  $("level").disabled = !ids.some((i) => CFG.builtin[Number(i || 0)]);
}

// Posts a new game (closing the one on show) and shows it.
async function newGame(body) {
  if (sid) body.close = sid;
  // The game on show is closed by this: its stream's end is no news.
  if (feed) feed.close();
  feed = null;
  const r = await act("/api/new", body);
  if (r && r.id) show(r.id);
}

function settingsChanged() {
  levelUsable();
  if (!sid || !S) return;
  const body = { id: sid, movetime: $("movetime").value, level: Number($("level").value), exact: $("exact").checked };
  // A match keeps its engines and sides; a change of them is a new match (Start match).
  if (!S.match && view === "play") {
    body.human = $("human").value;
    body.engine = Number($("engine").value || 0);
  }
  act("/api/settings", body);
}

// The controls show the settings of the game on the board.
function syncControls() {
  const st = S;
  $("game").value = st.game;
  if (st.game === "othello") $("size").value = String(st.rows);
  if (st.game === "connect4") { $("width").value = st.cols; $("height").value = st.rows; }
  if (st.game === "domineering") { $("rows").value = st.rows; $("cols").value = st.cols; }
  const h = st.settings.human;
  $("human").value = h[0] && h[1] ? "both" : h[0] ? "p1" : h[1] ? "p2" : "none";
  const mt = String(st.settings.movetime);
  if (![...$("movetime").options].some((o) => o.value === mt)) {
    const o = document.createElement("option");
    o.value = mt;
    o.textContent = st.settings.movetime / 1000 + " s";
    $("movetime").appendChild(o);
  }
  $("movetime").value = mt;
  $("engine").value = String(st.settings.engine);
  $("level").value = String(st.settings.level);
  if (st.match) {
    $("engine-a").value = String(st.match.pair[0]);
    $("engine-b").value = String(st.match.pair[1]);
    $("games").value = st.match.games;
  }
  setView(st.match ? "match" : "play");
  $("exact").checked = st.settings.exact;
  $("fen").value = st.fen;
  showSizes();
}

function showSizes() {
  for (const g of ["othello", "connect4", "domineering"]) {
    $("size-" + g).hidden = $("game").value !== g;
  }
}

const PIECE_NAMES = { p: "a pawn", n: "a knight", b: "a bishop", r: "a rook", q: "a queen" };

// What the last move took or turned over, in words.
function lastDetail(st) {
  const l = st.last;
  if (st.game === "othello" && l.changed.length) {
    return ", " + l.changed.length + (l.changed.length === 1 ? " disc" : " discs") + " flipped";
  }
  if (st.game === "chess") {
    const white = l.by === 0;
    const taken = l.was.find((p) => p && (p === p.toLowerCase()) === white);
    if (taken) return ", takes " + (PIECE_NAMES[taken.toLowerCase()] || taken);
  }
  return "";
}

function humanToMove(st) {
  return !st.result && st.settings.human[st.to_move];
}

// Classes of the exact value: win, draw or loss for the mover.
function valueClass(v) {
  return v > 0 ? "win" : v < 0 ? "loss" : "draw";
}

function cellContent(st, text) {
  if (!text) return "";
  text = esc(text);
  switch (st.game) {
    case "chess": {
      const lower = text.toLowerCase();
      const side = text === lower ? "b" : "w";
      return '<span class="piece ' + side + '">' + (PIECES[lower] || text) + "\uFE0E</span>";
    }
    case "othello":
      return '<div class="disc ' + text + '"></div>';
    default:
      return "";
  }
}

function render() {
  const st = S;
  if (!st) return;
  const board = $("board");
  board.className = st.game;
  const px = Math.max(26, Math.min(64, Math.floor(520 / Math.max(st.rows, st.cols))));
  document.documentElement.style.setProperty("--cell", px + "px");
  const flip = st.game === "chess" && !st.settings.human[0] && st.settings.human[1];
  const rows = [...Array(st.rows).keys()];
  const cols = [...Array(st.cols).keys()];
  if (flip) { rows.reverse(); cols.reverse(); }
  const mine = st.can_move;
  const legal = mine ? st.moves.filter((m) => !m.pass) : [];
  const exact = new Map(st.exact.moves.map((v) => [v.uci, v]));

  // Per cell: classes and a tag.
  const cls = new Map();
  const add = (cell, c) => {
    const k = key(cell);
    cls.set(k, (cls.get(k) || "") + " " + c);
  };
  const tags = new Map();
  if (st.last) {
    for (const c of st.last.cells) add(c, "last");
    for (const c of st.last.changed) add(c, st.game === "othello" ? "flip" : "last");
  }
  const columnTags = new Map();
  if (st.game === "chess") {
    for (const m of legal) add(m.cells[0], "can");
    if (sel) {
      add(sel.split(",").map(Number), "sel");
      for (const m of legal) {
        if (key(m.cells[0]) === sel) {
          const [r, c] = m.cells[1];
          add(m.cells[1], "target can" + (st.cells[r][c] ? " occupied" : ""));
        }
      }
    }
    const check = st.last && /[+#]$/.test(st.last.text);
    if (check) {
      const king = st.to_move === 0 ? "K" : "k";
      st.cells.forEach((row, r) => row.forEach((t, c) => { if (t === king) add([r, c], "check"); }));
    }
  } else if (st.game === "othello") {
    for (const m of legal) add(m.cells[0], "target can");
    for (const m of st.moves) {
      const v = exact.get(m.uci);
      if (v && m.cells.length) tags.set(key(m.cells[0]), v);
    }
  } else if (st.game === "connect4") {
    for (const m of legal) {
      for (let r = 0; r < st.rows; r++) add([r, m.cells[0][1]], "can");
    }
    for (const m of st.moves) {
      const v = exact.get(m.uci);
      if (v && m.cells.length) columnTags.set(m.cells[0][1], v);
    }
  } else if (st.game === "domineering") {
    for (const m of legal) for (const c of m.cells) add(c, "can");
    const h = hover && cellMove(st, hover.split(",").map(Number));
    if (h) for (const c of h.cells) add(c, "preview" + (st.to_move === 1 ? " pv" : ""));
    for (const m of st.moves) {
      const v = exact.get(m.uci);
      if (v && v.value > 0 && m.cells.length) add(m.cells[0], "winmark");
    }
  }

  const labelsTop = st.game === "othello" || st.game === "domineering";
  const letters = (c) => String.fromCharCode(97 + c);
  const rowLabel = (r) => (st.game === "chess" ? String(8 - r) : st.game === "connect4" ? "" : String(r + 1));
  let html = "";
  board.style.gridTemplateColumns = "22px repeat(" + st.cols + ", var(--cell))";
  if (labelsTop) {
    html += '<div class="coord"></div>';
    for (const c of cols) html += '<div class="coord">' + letters(c) + "</div>";
  }
  if (st.game === "connect4") {
    html += '<div class="coord head"></div>';
    for (const c of cols) {
      const v = columnTags.get(c);
      html += '<div class="coord head" id="colval-' + c + '">' +
        (v ? '<span class="tag ' + valueClass(v.value) + '" style="position:static">' + esc(v.label) + "</span>" : "") + "</div>";
    }
  }
  for (const r of rows) {
    html += '<div class="coord">' + rowLabel(r) + "</div>";
    for (const c of cols) {
      const text = st.cells[r][c];
      let cl = "cell" + (cls.get(r + "," + c) || "");
      if (st.game === "chess") cl += (r + c) % 2 === 0 ? " light" : " dark";
      let inner = cellContent(st, text);
      if (st.game === "connect4") inner = '<div class="hole ' + text + '"></div>';
      if (st.game === "domineering" && text) {
        const half = { "h<": "h left", "h>": "h right", "v^": "v top", vv: "v bottom" }[text];
        inner = '<div class="dom ' + (half || "covered") + '"></div>';
        cl += " full";
      }
      const t = tags.get(r + "," + c);
      if (t) inner += '<span class="tag ' + valueClass(t.value) + '">' + esc(t.label) + "</span>";
      html += '<div class="' + cl + '" id="cell-' + r + "-" + c + '" data-r="' + r + '" data-c="' + c + '">' + inner + "</div>";
    }
  }
  if (!labelsTop) {
    html += '<div class="coord"></div>';
    for (const c of cols) html += '<div class="coord">' + letters(c) + "</div>";
  }
  // Only a changed board is drawn again (a click must not meet a replaced cell).
  if (html !== lastBoard) {
    board.innerHTML = html;
    lastBoard = html;
  }
  renderPanel(st);
}

function renderPanel(st) {
  const [p1, p2] = st.sides;
  const names = [p1, p2];
  let turn = "";
  if (st.history.length && st.history[st.history.length - 1] === "pass" && st.last) {
    turn += names[st.last.by] + " passes. ";
  }
  if (st.match) turn += "Game " + st.match.game + " of " + st.match.games + ": ";
  if (!st.result && !st.recorded) {
    const who = names[st.to_move];
    const pass = st.moves.length === 1 && st.moves[0].pass;
    turn += who + " to move";
    if (humanToMove(st)) turn += pass ? ": no legal move, you must pass" : ": your move";
    // An earlier position (or analysis) where the engine's side is to move: a person may try
    // a move there, but it is not theirs to play.
    else if (st.can_move) turn += st.settings.analyse ? " (analysis: try a move)" : " (" + st.engine.name + "'s side: a move here makes a variation)";
    else if (st.engine.error) turn += " (the engine failed)";
    else if (st.engine.paused) turn += " (paused)";
    else turn += ": " + st.engine.name + " is thinking";
  }
  $("turn").textContent = turn;
  $("lastmove").textContent = st.last ? "Last move: " + names[st.last.by] + " " + st.last.text + lastDetail(st) : "";
  let counts = "";
  if (st.game === "othello") {
    let x = 0, o = 0;
    for (const row of st.cells) for (const t of row) { if (t === "x") x++; if (t === "o") o++; }
    counts = "Black " + x + " \u00B7 White " + o;
  }
  $("counts").textContent = counts;
  let res = "";
  const over = st.result || st.recorded;
  if (over) {
    const w = over.winner;
    res = "Game over: " + (w === null ? "a draw" : names[w] + " wins") + " (" + over.text + ", " + over.reason + ")";
  }
  $("result").textContent = res;

  $("undo").disabled = st.history.length === 0;
  $("undo").hidden = !!st.match;
  renderMatch(st);
  $("movenow").disabled = !st.engine.thinking;
  $("pass").hidden = !(st.can_move && st.moves.some((m) => m.pass));
  if (document.activeElement !== $("fen")) $("fen").value = st.fen;
  if (!$("promo").hidden && !st.can_move) $("promo").hidden = true;

  const e = st.engine;
  $("engine-name").textContent = e.name;
  $("engine-state").textContent = e.error ? "" : e.thinking ? "(thinking)" : "";
  const info = e.info || {};
  const fmt = (n) => (n === null || n === undefined ? "\u2013" : Number(n).toLocaleString("en"));
  $("depth").textContent = info.depth == null ? "\u2013" : info.depth + (info.seldepth ? "/" + info.seldepth : "");
  $("score").textContent = info.score == null ? "\u2013" : info.score + " (" + names[info.side] + ")";
  $("nodes").textContent = fmt(info.nodes);
  $("nps").textContent = info.nps == null ? "\u2013" : fmt(info.nps) + " n/s";
  $("pv").textContent = info.pv && info.pv.length ? "PV " + info.pv.join(" ") : "";
  $("note").textContent = e.error ? e.error : e.note || "";
  $("note").style.color = e.error ? "var(--loss)" : "";

  const x = st.exact;
  $("exact-box").hidden = st.game === "chess";
  $("exact-state").textContent = {
    off: st.result ? "" : st.settings.exact ? "(no exact values here)" : "(off)",
    running: "(solving\u2026)",
    done: "(exact)",
    stopped: "(out of time)",
  }[x.state] || "";
  const vals = [...x.moves].sort((a, b) => b.value - a.value);
  $("values").innerHTML = vals
    .map((v) => {
      const m = st.moves.find((mm) => mm.uci === v.uci);
      return '<span class="val ' + valueClass(v.value) + '">' + esc(m ? m.text : v.uci) + " " + esc(v.label) + "</span>";
    })
    .join("");

  renderMoves(st);
  renderAnalysis(st);
}

// The match box: the score of engine A against engine B and every game's result.
function renderMatch(st) {
  const m = st.match;
  $("match-box").hidden = !m;
  if (!m) return;
  const [a, b] = m.names;
  const [sa, sb] = m.score;
  $("match-state").textContent = m.finished ? "(finished)" : "(game " + m.game + " of " + m.games + ")";
  $("match-score").textContent = a + " " + sa + " \u2013 " + sb + " " + b +
    "  (+" + m.wins + " =" + m.draws + " \u2212" + m.losses + ")";
  const side = (first) => (first ? st.sides[0] : st.sides[1]);
  // The same plot as `tabula match --report` draws (plot.js), from the same course.
  const last = m.course.points[m.course.points.length - 1];
  $("match-elo").textContent = last && last.elo !== null
    ? "Elo " + (last.elo >= 0 ? "+" : "-") + Math.abs(last.elo).toFixed(1) +
      (last.elo_error === null ? "" : " \u00b1 " + last.elo_error.toFixed(1)) + " (95%)"
    : "";
  $("match-plot").innerHTML = TabulaPlot.elo(m.course, "match-elo-svg", { width: 460, height: 250 });
  $("match-games").innerHTML = m.results
    .map((r) => "<li>" + esc(a) + " (" + esc(side(r.a_first)) + ") " + esc(r.result) + "</li>")
    .join("");
  $("players").textContent = st.sides[0] + ": " + st.players[0] + " \u00B7 " + st.sides[1] + ": " + st.players[1];
}

// The move a click on `cell` makes where moves are entered by cell: the one starting there
// (an Othello disc, the first cell of a domino), else one covering it (a domino's other cell).
function cellMove(st, cell) {
  const k = key(cell);
  const moves = st.moves.filter((m) => !m.pass);
  return moves.find((m) => key(m.cells[0]) === k) || moves.find((m) => m.cells.some((c) => key(c) === k));
}

function play(uci) {
  sel = null;
  $("promo").hidden = true;
  act("/api/move", { id: sid, move: uci, branch: $("branch").value });
}

function clicked(r, c) {
  const st = S;
  if (!st || !st.can_move) return;
  const k = r + "," + c;
  const moves = st.moves.filter((m) => !m.pass);
  // The way moves are entered, as the server says (`input`): a column, a cell, or from-to.
  if (st.input === "column") {
    const m = moves.find((mm) => mm.cells[0][1] === c);
    if (m) play(m.uci);
  } else if (st.input === "cell") {
    const m = cellMove(st, [r, c]);
    if (m) play(m.uci);
  } else if (st.input === "from-to") {
    const to = sel ? moves.filter((m) => key(m.cells[0]) === sel && key(m.cells[1]) === k) : [];
    if (to.length === 1) {
      play(to[0].uci);
    } else if (to.length > 1) {
      choosePromotion(to);
    } else {
      sel = moves.some((m) => key(m.cells[0]) === k) && sel !== k ? k : null;
      render();
    }
  }
}

// Several moves between the same squares: a promotion; the player picks the piece.
function choosePromotion(moves) {
  const box = $("promo").firstElementChild;
  const white = S.to_move === 0;
  box.innerHTML = "";
  for (const m of moves) {
    const p = m.uci.slice(-1);
    const b = document.createElement("button");
    b.id = "promo-" + p;
    b.innerHTML = '<span class="piece ' + (white ? "w" : "b") + '">' + PIECES[p] + "\uFE0E</span>";
    b.title = m.text;
    b.onclick = () => play(m.uci);
    box.appendChild(b);
  }
  $("promo").hidden = false;
}

async function init() {
  // On the press, not the click: a board drawn again between the press and the release
  // (the solver's values arriving, the engine's move) would otherwise lose the click, whose
  // press and release then fall on different cells. A tap on a touch screen presses too;
  // a touch that scrolls does not.
  $("board").addEventListener("mousedown", (ev) => {
    const cell = ev.button === 0 && ev.target.closest(".cell");
    if (cell) clicked(Number(cell.dataset.r), Number(cell.dataset.c));
  });
  $("board").addEventListener("mouseover", (ev) => {
    const cell = ev.target.closest(".cell");
    const h = cell ? cell.dataset.r + "," + cell.dataset.c : null;
    if (S && S.game === "domineering" && h !== hover) { hover = h; render(); }
  });
  $("board").addEventListener("mouseleave", () => { if (hover) { hover = null; render(); } });
  $("promo").addEventListener("click", (ev) => { if (ev.target === $("promo")) $("promo").hidden = true; });
  $("new").onclick = () => newGame(setupBody());
  $("start-match").onclick = () => newGame(setupBody());
  $("view-play").onclick = () => setView("play");
  $("view-match").onclick = () => {
    // The solver would take time from the engines of a match: off unless turned on again.
    $("exact").checked = false;
    setView("match");
  };
  for (const id of ["engine-a", "engine-b"]) $(id).onchange = levelUsable;
  $("undo").onclick = () => act("/api/undo", { id: sid });
  $("movenow").onclick = () => act("/api/stop", { id: sid });
  $("pass").onclick = () => play("0000");
  $("setfen").onclick = () => {
    const body = setupBody();
    const fen = $("fen").value.trim();
    if (fen) body.fen = fen;
    newGame(body);
  };
  $("game").onchange = showSizes;
  wireAnalysis();
  for (const id of ["human", "movetime", "engine", "level", "exact"]) $(id).onchange = settingsChanged;
  try {
    // With the game this tab had before a reload: whether the server still has it.
    const cfg = await call("/api/config" + (sid ? "?resume=" + encodeURIComponent(sid) : ""));
    CFG = cfg;
    const opts = cfg.engines.map((n, i) => '<option value="' + i + '">' + esc(n) + "</option>").join("");
    for (const id of ["engine", "engine-a", "engine-b"]) $(id).innerHTML = opts;
    if (cfg.engines.length > 1) $("engine-b").value = "1";
    $("level").innerHTML = [...Array(cfg.levels + 1).keys()].reverse()
      .map((l) => '<option value="' + l + '">' + (l === cfg.levels ? l + " (full)" : l) + "</option>").join("");
    $("games").max = cfg.max_match;
    $("game").value = cfg.default_game;
    showSizes();
  } catch (e) {
    showError(e);
    return;
  }
  if (sid && CFG.open) {
    show(sid);
    return;
  }
  sid = null;
  await newGame(setupBody());
}

window.tabula = { get state() { return S; } };
init();
