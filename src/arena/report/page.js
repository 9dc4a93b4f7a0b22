// The report page's own script (src/arena/report/template.html): reads the match's data from
// the page (the JSON report of `tabula match --json` as `summary`, with the course, the
// results by opening and the move times of src/arena/report/mod.rs) and fills the tables;
// the plots come from plot.js. Every number shown is the data's, formatted as the match's
// table prints it.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const esc = TabulaPlot.esc;
  const data = JSON.parse($("match-data").textContent);
  const sum = data.summary;
  const head = data.header;
  const names = head.engines.map((e) => e.name);
  window.tabulaReport = data;

  const signed = (v, d) => (v >= 0 ? "+" : "-") + Math.abs(v).toFixed(d);
  const pct = (v) => (v === null ? "\u2013" : (v * 100).toFixed(1) + "%");
  // Elo as the table prints it: "+12.3 ± 45.6"; not finite where every game went one way.
  function eloText(elo, err, score) {
    if (elo === null) return score === 1 ? "+\u221e" : score === 0 ? "-\u221e" : "\u2013";
    return signed(elo, 1) + " \u00b1 " + (err === null ? "\u221e" : err.toFixed(1));
  }
  const points = (w, d) => { const p = w + d / 2; return Number.isInteger(p) ? String(p) : p.toFixed(1); };
  const row = (cells, tag) => "<tr>" + cells.map((c) => {
    const [text, cls] = Array.isArray(c) ? c : [c, ""];
    return "<" + (tag || "td") + (cls ? ' class="' + cls + '"' : "") + ">" + text + "</" + (tag || "td") + ">";
  }).join("") + "</tr>";

  // Header.
  const running = data.status !== "finished";
  document.title = "tabula match: " + names.join(" vs ") + (running ? " (running)" : "");
  $("title").textContent = names.join(" vs ") + " \u2014 " + head.game;
  $("status").textContent = running ? "running" : "finished";
  $("status").className = "status " + (running ? "running" : "finished");
  $("updated").textContent = "started " + head.date.replace(/\./g, "-") + " \u00b7 updated " + data.updated.replace(/\./g, "-") +
    (running ? " \u00b7 this page reloads itself while the match runs" : "");
  const setup = [
    ["game", esc(head.game)],
    ["time control", esc(sum.time_control)],
    ["games", sum.games_played + " of " + head.games_planned + " played" + (head.concurrency > 1 ? ", " + head.concurrency + " at a time" : "")],
    ["openings", head.openings_file ? esc(head.openings_file) + " (" + head.openings + " positions, each with both colours)" : "the standard start"],
    ["schedule", names.length > 2 ? (head.gauntlet ? "gauntlet" : "round robin") : "one pairing"],
  ];
  if (head.sprt) setup.push(["SPRT", esc(head.sprt)]);
  $("setup-table").innerHTML = setup.map((r) => row([[r[0], "l"], [r[1], "l"]])).join("");
  $("engines-setup").innerHTML = row([["engine", "l"], ["command", "l"], ["options", "l"], ["own limit", "l"]], "th") +
    head.engines.map((e) => row([[esc(e.name), "l"], [esc(e.command), "l fen"], [esc(e.options.join(" ")), "l"], [esc(e.limit || ""), "l"]])).join("");

  // Score of the first pairing (the one the course, the progress line and the SPRT follow).
  const p0 = sum.pairings[0];
  if (p0) {
    $("score").textContent = p0.a + " " + points(p0.wins, p0.draws) + " \u2013 " + points(p0.losses, p0.draws) + " " + p0.b +
      "  (+" + p0.wins + " =" + p0.draws + " -" + p0.losses + ")";
    const games = p0.wins + p0.draws + p0.losses;
    const score = games ? (p0.wins + p0.draws / 2) / games : null;
    $("elo").textContent = "Elo " + eloText(p0.elo, p0.elo_error, score) + " (95%)  \u00b7  normalized Elo " +
      (p0.nelo === null ? "\u2013" : signed(p0.nelo, 1) + " \u00b1 " + p0.nelo_error.toFixed(1)) +
      "  \u00b7  LOS " + pct(p0.los) + "  \u00b7  score " + pct(score);
    const pairs = p0.penta.reduce((a, b) => a + b, 0);
    $("penta").textContent = pairs ? "game pairs [LL, LD, DD+WL, WD, WW] = [" + p0.penta.join(", ") + "] (" + pairs + " pairs)" : "";
  }
  if (sum.sprt) {
    const s = sum.sprt;
    const verdict = { H1: "H1 accepted", H0: "H0 accepted", undecided: "undecided" }[s.verdict];
    $("sprt").textContent = "SPRT elo0=" + s.elo0 + " elo1=" + s.elo1 + " alpha=" + s.alpha + " beta=" + s.beta +
      ": LLR " + (s.llr === null ? "\u2013" : s.llr.toFixed(2)) + " (" + s.lower.toFixed(2) + ", " + s.upper.toFixed(2) + ") \u2192 " + verdict;
  }
  if (sum.pairings.length > 1) {
    $("pairings").innerHTML = row(["pairing", "+", "=", "-", "Elo (95%)", "nElo", "LOS", "pairs"], "th") +
      sum.pairings.map((p) => {
        const g = p.wins + p.draws + p.losses;
        return row([[esc(p.a + " vs " + p.b), "l"], p.wins, p.draws, p.losses,
          eloText(p.elo, p.elo_error, g ? (p.wins + p.draws / 2) / g : null),
          p.nelo === null ? "\u2013" : signed(p.nelo, 1), pct(p.los), "[" + p.penta.join(", ") + "]"]);
      }).join("");
    $("engines").innerHTML = row([["engine", "l"], "games", "wins", "draws", "losses", "score", "Elo (95%)"], "th") +
      sum.engines.map((e) => row([[esc(e.name), "l"], e.games, e.wins, e.draws, e.losses, pct(e.score), eloText(e.elo, e.elo_error, e.score)])).join("");
  }

  // Plots.
  $("elo-plot").innerHTML = TabulaPlot.elo(data.course, "elo-svg");
  if (sum.sprt) $("llr-plot").innerHTML = TabulaPlot.llr(data.course, "llr-svg");

  // Results by opening, the pairing's first engine's view with each colour.
  const [c1, c2] = head.game === "chess" ? ["White", "Black"] : head.game === "domineering" ? ["Horizontal", "Vertical"] : ["first", "second"];
  const wdl = (a) => (a[0] + a[1] + a[2] ? "+" + a[0] + " =" + a[1] + " -" + a[2] : "");
  $("openings").innerHTML = row([["#", "l"], ["opening", "l"], ["pairing", "l"], "first engine as " + c1, "as " + c2, "points", "games"], "th") +
    data.openings.map((o, i) => {
      const p = sum.pairings[o.pairing] || { a: "?", b: "?" };
      const w = o.as_p1[0] + o.as_p2[0], d = o.as_p1[1] + o.as_p2[1], l = o.as_p1[2] + o.as_p2[2];
      return row([[i + 1, "l"], [esc(o.opening || "standard start"), "l fen"], [esc(p.a + " vs " + p.b), "l"],
        wdl(o.as_p1), wdl(o.as_p2), points(w, d) + " / " + (w + d + l), w + d + l]);
    }).join("");

  // Time per move, by engine and colour.
  const mean = (t, i) => (t.moves[i] ? (t.total_ms[i] / t.moves[i]).toFixed(1) : "\u2013");
  const all = (t) => (t.moves[0] + t.moves[1] ? ((t.total_ms[0] + t.total_ms[1]) / (t.moves[0] + t.moves[1])).toFixed(1) : "\u2013");
  $("times").innerHTML = row([["engine", "l"], "moves", "mean ms", "as " + c1, "as " + c2, "longest ms", "total s"], "th") +
    data.times.map((t) => row([[esc(t.name), "l"], t.moves[0] + t.moves[1], all(t), mean(t, 0), mean(t, 1), t.max_ms,
      ((t.total_ms[0] + t.total_ms[1]) / 1000).toFixed(1)])).join("");
  const used = data.times.map((t) => t.histogram.reduce((a, b, i) => (b ? i : a), -1));
  const top = Math.max(0, ...used);
  const labels = [];
  for (let i = 0; i <= top; i++) labels.push(i === 0 ? "<1" : i === data.times[0].histogram.length - 1 ? "\u2265" + Math.pow(2, i - 1) : String(Math.pow(2, i - 1)));
  $("time-hist").innerHTML = TabulaPlot.bars({
    title: "Moves by time taken (ms, from)", ylabel: "moves", labels: labels, width: 560, height: 260,
    series: data.times.map((t) => ({ name: t.name, values: t.histogram.slice(0, top + 1) })),
  });
  $("time-games").innerHTML = TabulaPlot.chart({
    title: "Mean time per move in each game", xlabel: "games finished", ylabel: "ms", width: 560, height: 260,
    lines: data.times.map((t) => ({ pts: t.per_game, label: t.name })),
  });

  // Every forfeit, illegal move, crash, hang and note, with its game.
  const byRound = {};
  for (const g of sum.games) byRound[g.round] = g;
  $("problems").innerHTML = sum.problems.length
    ? sum.problems.map((p) => {
      const m = /^game (\d+):/.exec(p);
      const g = m && byRound[m[1]];
      const who = g ? " (" + esc(g.p1) + " \u2013 " + esc(g.p2) + ", " + g.result + ")" : "";
      return '<li class="problem">' + esc(p) + who + "</li>";
    }).join("")
    : '<li class="muted">none</li>';

  $("games").innerHTML = row(["game", ["player 1", "l"], ["player 2", "l"], "result", ["reason", "l"], "plies", ["opening", "l"]], "th") +
    sum.games.map((g) => row([g.round, [esc(g.p1), "l"], [esc(g.p2), "l"], g.result, [esc(g.reason), "l"], g.plies,
      [esc(g.opening || "standard start"), "l fen"]])).join("");
})();
