// tabula's browser board: draws the state the server sends (GET /api/state) and sends the
// player's clicks as moves in the game's notation. No rules live here: the legal moves, each
// with the cells a click picks it by, come from the server (tabula's own rules).
"use strict";

const DIMS = {
  connect4: [["width", 7], ["height", 6]],
  othello: [["size", 8]],
  chess: [],
  domineering: [["rows", 8], ["cols", 8], ["first", "h"]],
};
const PIECES = { K: "\u2654", Q: "\u2655", R: "\u2656", B: "\u2657", N: "\u2658", P: "\u2659",
                 k: "\u265a", q: "\u265b", r: "\u265c", b: "\u265d", n: "\u265e", p: "\u265f" };

let id = null;
let state = null;
let picked = null;   // the legal moves matching the first click (chess: from-square chosen)
let asked = -1;      // the history length at which the engine was last asked to move

const $ = (s) => document.getElementById(s);

async function api(path, params) {
  const q = new URLSearchParams(params).toString();
  const post = path !== "state";
  const r = await fetch(`/api/${path}?${q}`, { method: post ? "POST" : "GET" });
  const j = await r.json();
  if (j.error) throw new Error(j.error);
  return j;
}

function showDims() {
  const g = $("game").value;
  $("dims").innerHTML = DIMS[g].map(([k, v]) =>
    k === "first"
      ? `<label>first <select id="d-first"><option value="h">Horizontal</option><option value="v">Vertical</option></select></label>`
      : `<label>${k} <input id="d-${k}" type="number" value="${v}"></label>`).join(" ");
}

async function newGame() {
  const g = $("game").value;
  const params = { game: g };
  for (const [k] of DIMS[g]) params[k] = $(`d-${k}`).value;
  if (id !== null) api("close", { id }).catch(() => {});
  try {
    id = (await api("new", params)).id;
    asked = -1;
    picked = null;
    await refresh();
  } catch (e) { error(e); }
}

function error(e) {
  $("status").innerHTML = `<span class="error">${escape(e.message || String(e))}</span>`;
}

function escape(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
}

function humanToMove(s) {
  const h = $("human").value;
  return h === "both" || h === s.toMove;
}

function sideName(s, p) {
  const names = { chess: ["White", "Black"], othello: ["Black", "White"],
                  connect4: ["Red", "Yellow"], domineering: ["Horizontal", "Vertical"] }[s.game];
  return p === "p1" ? names[0] : names[1];
}

function draw() {
  const s = state;
  const board = $("board");
  board.className = s.game;
  board.style.gridTemplateColumns = `repeat(${s.cols}, 46px)`;
  const clickable = new Map();
  if (!s.result && !s.busy && humanToMove(s)) {
    for (const m of s.legal) {
      const cells = picked ? (m.to !== null && picked.includes(m) ? [m.to] : []) : m.click;
      for (const c of cells) {
        if (!clickable.has(c)) clickable.set(c, []);
        clickable.get(c).push(m);
      }
    }
  }
  const last = new Set(s.last ? s.last.cells : []);
  const changed = new Set(s.changed);
  board.innerHTML = "";
  s.cells.forEach((v, i) => {
    const d = document.createElement("div");
    d.className = "cell";
    d.dataset.cell = i;
    const r = Math.floor(i / s.cols), c = i % s.cols;
    if (s.game === "chess") d.classList.add((r + c) % 2 ? "dark" : "light");
    if (s.game === "chess" && v !== ".") d.textContent = PIECES[v] || v;
    if ((s.game === "othello" || s.game === "connect4") && v !== ".") {
      const disc = document.createElement("div");
      disc.className = `disc ${v}`;
      d.appendChild(disc);
    }
    if (s.game === "domineering" && v === "#") d.classList.add("covered");
    if (last.has(i)) d.classList.add("last");
    if (changed.has(i) && !last.has(i)) d.classList.add("changed");
    if (picked && picked.some((m) => m.click.includes(i))) d.classList.add("picked");
    if (clickable.has(i)) {
      d.classList.add("legal");
      d.onclick = () => choose(clickable.get(i));
    } else if (picked) {
      d.onclick = () => { picked = null; draw(); };
    }
    board.appendChild(d);
  });
  // Moves with no cell of their own: passes.
  $("passes").innerHTML = "";
  if (!s.result && !s.busy && humanToMove(s)) {
    for (const m of s.legal.filter((m) => m.click.length === 0)) {
      const b = document.createElement("button");
      b.textContent = `${m.human === "0000" ? "pass" : m.human}`;
      b.id = "pass";
      b.onclick = () => send(m.move);
      $("passes").appendChild(b);
    }
  }
  let status;
  if (s.result) {
    const who = s.result === "draw" ? "Draw" : `${sideName(s, s.result)} wins`;
    status = `<span class="result">${who} (${escape(s.reason)})</span>`;
  } else {
    status = `${sideName(s, s.toMove)} to move` + (s.busy ? " — the engine is thinking" : "");
  }
  if (s.error) status += `<br><span class="error">${escape(s.error)}</span>`;
  $("status").innerHTML = status;
  $("engine").textContent = s.engine;
  const t = s.thinking;
  $("thinking").textContent = t.depth ? `depth ${t.depth}  score ${t.score}  nodes ${t.nodes}\npv ${t.pv}` : "";
  $("values").innerHTML = s.values
    ? "<tr><th>move</th><th>value</th></tr>" +
      s.values.map((v) => `<tr><td>${escape(v.move)}</td><td>${escape(v.value)}</td></tr>`).join("")
    : "";
  $("history").textContent = s.history.join(" ");
  if (document.activeElement !== $("fen")) $("fen").value = s.fen;
}

function choose(moves) {
  if (!picked && moves.some((m) => m.to !== null)) {
    picked = moves;  // chess: the piece is chosen; now its square
    draw();
    return;
  }
  picked = null;
  if (moves.length === 1) return send(moves[0].move);
  // Several moves on one click: promotions.
  $("promo").innerHTML = "promote to: " + moves.map((m) =>
    `<button data-move="${escape(m.move)}">${escape(m.human)}</button>`).join("");
  for (const b of $("promo").querySelectorAll("button")) {
    b.onclick = () => { $("promo").innerHTML = ""; send(b.dataset.move); };
  }
}

async function send(move) {
  try {
    await api("move", { id, move });
  } catch (e) { error(e); }
  await refresh();
}

async function refresh() {
  if (id === null) return;
  try {
    state = await api("state", { id });
  } catch (e) { error(e); return; }
  draw();
  const s = state;
  if (!s.result && !s.busy && !humanToMove(s) && asked !== s.history.length) {
    asked = s.history.length;
    try { await api("go", { id, ms: $("ms").value }); } catch (e) { error(e); }
  }
}

$("game").onchange = () => { showDims(); newGame(); };
$("new").onclick = newGame;
$("human").onchange = () => { asked = -1; refresh(); };
$("undo").onclick = async () => {
  try {
    await api("stop", { id });
    // Back to the last position where the player is to move.
    await api("undo", { id });
    state = await api("state", { id });
    if (!humanToMove(state) && state.history.length > 0) await api("undo", { id });
    asked = -2;
  } catch (e) { error(e); }
  picked = null;
  await refresh();
  asked = state ? state.history.length : -1;
};
$("stop").onclick = () => api("stop", { id }).catch(error);
$("go").onclick = async () => { try { await api("go", { id, ms: $("ms").value }); } catch (e) { error(e); } };
$("setfen").onclick = async () => {
  try { await api("fen", { id, fen: $("fen").value }); asked = -1; } catch (e) { error(e); }
  $("fen").blur();
  await refresh();
};
setInterval(refresh, 300);
showDims();
newGame();
