// tabula serve: the analysis part of the page's script (loaded before app.js, whose globals
// it uses: S the state, sid, act, call, newGame, esc, $): the move list with its variations, the
// navigation by buttons, keys and the graph, the Analyse lines, the game review and its
// evaluation graph, save and load. It draws what the server sends; the tree, the positions
// and the records are the server's.
"use strict";

// The game's tree by node id.
function treeOf(st) {
  const t = new Map();
  for (const n of st.tree) t.set(n.id, n);
  return t;
}

// Chess numbers its moves: (number, White's move?) of the move at `ply` (1 the first).
function moveNumber(st, ply) {
  if (st.game !== "chess") return null;
  const f = st.start_fen.split(" ");
  const black = f[1] === "b";
  const first = Number(f[5]) || 1;
  const k = ply - 1 + (black ? 1 : 0);
  return [first + Math.floor(k / 2), k % 2 === 0];
}

// A move's NAGs as the usual glyphs ($1 "!", ... $6 "?!"), others as written.
function nagText(nags) {
  if (!nags) return "";
  const glyph = { $1: "!", $2: "?", $3: "!!", $4: "??", $5: "!?", $6: "?!" };
  return nags.split(" ").map((g) => glyph[g] || " " + g).join("");
}

// The move list: the main line, each variation in brackets after the move it replaces.
function renderMoves(st) {
  const t = treeOf(st);
  const out = [];
  const move = (id, force) => {
    const n = t.get(id);
    const num = moveNumber(st, n.ply);
    if (num && (num[1] || force)) out.push('<span class="num">' + num[0] + (num[1] ? "." : "\u2026") + "</span>");
    else if (!num && (force || n.ply % 10 === 1)) out.push('<span class="num">' + n.ply + ".</span>");
    out.push('<button class="mv' + (id === st.cursor ? " cur" : "") + '" data-node="' + id + '" id="mv-' + id + '">' + esc(n.text + nagText(n.nags)) + "</button>");
    note(n);
  };
  // A loaded record's comment, beside its move.
  const note = (n) => { if (n.comment) out.push('<span class="comment">' + esc(n.comment) + "</span>"); };
  note(t.get(0));
  const line = (from, force) => {
    let at = t.get(from);
    while (at && at.children.length) {
      const [main, ...others] = at.children;
      move(main, force);
      force = false;
      for (const v of others) {
        out.push('<span class="var">(');
        move(v, true);
        line(v, false);
        out.push(")</span>");
        force = true;
      }
      at = t.get(main);
    }
  };
  line(0, true);
  const h = $("history");
  const html = out.join(" ");
  if (h.dataset.html !== html) {
    h.innerHTML = html;
    h.dataset.html = html;
    const cur = h.querySelector(".mv.cur");
    if (cur) cur.scrollIntoView({ block: "nearest" });
  }
}

// A score on the graph's scale, -1 (player 2 wins) to +1 (player 1 wins).
function graphValue(st, n) {
  if (n.exact) {
    const v = n.exact.value;
    if (st.game === "othello") return Math.tanh(v / 16);
    if (st.game === "connect4") return v === 0 ? 0 : Math.sign(v) * (0.6 + 0.4 * Math.min(1, Math.abs(v) / 22));
    return Math.sign(v);
  }
  if (!n.score) return null;
  if (n.score.mate !== null && n.score.mate !== undefined) return n.score.mate > 0 ? 1 : n.score.mate < 0 ? -1 : 0;
  const cp = n.score.cp;
  if (st.game === "chess") return 2 / (1 + Math.exp(-0.00368208 * cp)) - 1;
  if (st.game === "othello") return Math.tanh(cp / 1600);
  return Math.tanh(cp / 400);
}

// The evaluation graph of the line on show: a point per position with a score; the solver's
// exact values in green; the position on show marked; a click goes to the nearest position.
function renderGraph(st) {
  const t = treeOf(st);
  const line = st.line.map((id) => t.get(id));
  const W = 420, H = 130, L = 6, R = 6, T = 8, B = 18;
  const n = line.length;
  const x = (i) => L + (n <= 1 ? 0 : (i * (W - L - R)) / (n - 1));
  const y = (v) => T + ((1 - v) / 2) * (H - T - B);
  let pts = [];
  let dots = "";
  line.forEach((node, i) => {
    const v = graphValue(st, node);
    if (v === null) return;
    pts.push([x(i), y(v)]);
    const tip = (node.exact ? "exact " + node.exact.label : node.score.text + " (depth " + node.score.depth + ")") +
      (i ? ", after " + node.text : ", the start");
    dots += '<circle class="' + (node.exact ? "g-exact" : "g-pt") + '" cx="' + x(i).toFixed(1) + '" cy="' + y(v).toFixed(1) +
      '" r="' + (node.exact ? 3.5 : 2.2) + '" data-i="' + i + '"><title>' + esc(tip) + "</title></circle>";
  });
  const cur = st.line.indexOf(st.cursor);
  let svg = '<svg id="graph-svg" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + " " + H + '">';
  svg += '<rect class="g-frame" x="0.5" y="0.5" width="' + (W - 1) + '" height="' + (H - 1) + '"/>';
  svg += '<line class="g-mid" x1="' + L + '" x2="' + (W - R) + '" y1="' + y(0) + '" y2="' + y(0) + '"/>';
  if (pts.length) {
    const path = pts.map((p, i) => (i ? "L" : "M") + p[0].toFixed(1) + " " + p[1].toFixed(1)).join(" ");
    svg += '<path class="g-area" d="' + path + " L" + pts[pts.length - 1][0].toFixed(1) + " " + y(0) + " L" + pts[0][0].toFixed(1) + " " + y(0) + ' Z"/>';
    svg += '<path class="g-line" d="' + path + '"/>';
  }
  if (cur >= 0) svg += '<line class="g-cur" x1="' + x(cur) + '" x2="' + x(cur) + '" y1="' + T + '" y2="' + (H - B) + '"/>';
  svg += dots;
  svg += '<text class="g-label" x="' + L + '" y="' + (H - 5) + '">' + esc(st.sides[0]) + " above, " + esc(st.sides[1]) +
    " below \u00b7 " + pts.length + " of " + n + " positions scored</text>";
  svg += "</svg>";
  const g = $("graph");
  if (g.dataset.svg !== svg) {
    g.innerHTML = svg;
    g.dataset.svg = svg;
    g.dataset.n = String(n);
  }
}

function renderAnalysis(st) {
  const a = st.settings.analyse;
  $("analyse").classList.toggle("on", a);
  $("analyse").textContent = a ? "Stop analysis" : "Analyse";
  $("review").classList.toggle("on", st.review.on);
  $("review").textContent = st.review.on ? "Stop review" : "Review the game";
  if (document.activeElement !== $("multipv")) $("multipv").value = String(st.settings.multipv);
  const t = treeOf(st);
  const here = t.get(st.cursor);
  $("nav-start").disabled = $("nav-back").disabled = st.cursor === 0;
  $("nav-fwd").disabled = !here || !here.children.length;
  $("nav-end").disabled = st.line[st.line.length - 1] === st.cursor;
  $("promote").disabled = !!st.match || st.cursor === 0;
  $("remove").disabled = !!st.match || st.cursor === 0;
  const live = !st.match;
  for (const id of ["analyse", "review", "nav-start", "nav-back", "nav-fwd", "nav-end"]) if (!live) $(id).disabled = true;
  let state = "";
  if (st.review.on) {
    const line = st.line.map((id) => t.get(id));
    const done = line.filter((n) => n.reviewed).length;
    state = "(reviewing: " + done + " of " + line.length + ")";
  } else if (!a && st.line.length > 1 && st.line.every((id, i) => t.get(id).reviewed || (i === st.line.length - 1 && i > 0))) {
    // Every position scored (a finished game's last one has nothing to search).
    state = "(review done)";
  } else if (a) state = st.engine.thinking ? "(thinking)" : "";
  $("analysis-state").textContent = state;
  const info = st.engine.info;
  const lines = a && info && info.lines && info.lines.length ? info.lines : a && info && info.pv.length ? [info] : [];
  const side = st.sides[st.to_move];
  $("lines").innerHTML = lines
    .map((l) => '<li><span class="sc">' + esc(l.score || "\u2013") + "</span> " + esc((l.pv || []).join(" ")) +
      (l.depth ? ' <span class="num">d' + l.depth + "</span>" : "") + "</li>")
    .join("");
  $("lines").title = lines.length ? "Scores for " + side + ", the side to move" : "";
  renderGraph(st);
}

// Shows node `node` of the game.
function goTo(node) {
  if (node === undefined || node === null || !S || node === S.cursor) return;
  act("/api/goto", { id: sid, node: node });
}

function navigate(where) {
  if (!S) return;
  const t = treeOf(S);
  const here = t.get(S.cursor);
  if (where === "start") goTo(0);
  else if (where === "back" && here) goTo(S.cursor === 0 ? null : here.parent);
  else if (where === "fwd" && here && here.children.length) goTo(here.children[0]);
  else if (where === "end") goTo(S.line[S.line.length - 1]);
}

async function exportGame() {
  try {
    const r = await call("/api/export", { id: sid });
    $("record").value = r.text;
    const a = $("download");
    if (a.href) URL.revokeObjectURL(a.href);
    a.href = URL.createObjectURL(new Blob([r.text], { type: "text/plain" }));
    a.download = r.file;
    a.textContent = "Download " + r.file;
    a.hidden = false;
    showError(null);
  } catch (e) {
    showError(e);
  }
}

async function loadGame(text) {
  const body = {
    record: text,
    movetime: $("movetime").value,
    engine: Number($("engine").value || 0),
    level: Number($("level").value),
    exact: $("exact").checked,
  };
  await newGame(body);
}

// The analysis controls, wired once at start-up.
function wireAnalysis() {
  // On the press, as the board (app.js): the list is drawn again as the engine reports.
  // A click from the keyboard (Enter or Space on a move, `detail` 0) still goes there.
  const go = (b) => b && goTo(Number(b.dataset.node));
  $("history").addEventListener("mousedown", (ev) => go(ev.button === 0 && ev.target.closest(".mv")));
  $("history").addEventListener("click", (ev) => go(ev.detail === 0 && ev.target.closest(".mv")));
  $("graph").addEventListener("click", (ev) => {
    if (!S) return;
    const svg = $("graph").querySelector("svg");
    if (!svg) return;
    const r = svg.getBoundingClientRect();
    const n = S.line.length;
    const i = Math.round(((ev.clientX - r.left - 6) / (r.width - 12)) * (n - 1));
    goTo(S.line[Math.max(0, Math.min(n - 1, i))]);
  });
  $("nav-start").onclick = () => navigate("start");
  $("nav-back").onclick = () => navigate("back");
  $("nav-fwd").onclick = () => navigate("fwd");
  $("nav-end").onclick = () => navigate("end");
  document.addEventListener("keydown", (ev) => {
    const tag = (document.activeElement && document.activeElement.tagName) || "";
    if (["INPUT", "TEXTAREA", "SELECT"].includes(tag) || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const where = { ArrowLeft: "back", ArrowRight: "fwd", Home: "start", End: "end" }[ev.key];
    if (where) {
      ev.preventDefault();
      navigate(where);
    }
  });
  $("analyse").onclick = () => act("/api/settings", { id: sid, analyse: !S.settings.analyse, multipv: Number($("multipv").value) });
  $("multipv").onchange = () => act("/api/settings", { id: sid, multipv: Number($("multipv").value) });
  $("review").onclick = () => act("/api/review", { id: sid, on: !S.review.on });
  $("promote").onclick = () => act("/api/promote", { id: sid, node: S.cursor });
  $("remove").onclick = () => act("/api/remove", { id: sid, node: S.cursor });
  $("export").onclick = exportGame;
  $("load").onclick = () => loadGame($("record").value);
  $("file").onchange = async () => {
    const f = $("file").files[0];
    if (!f) return;
    const text = await f.text();
    $("record").value = text;
    await loadGame(text);
  };
}
