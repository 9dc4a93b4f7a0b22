// The match plots, as inline SVG markup: Elo with its 95% interval over the games, the SPRT's
// log-likelihood ratio against its bounds, and plain line and bar charts. One file, used twice:
// put inside the page `tabula match --report` writes (src/arena/report/html.rs), and served as
// /plot.js to the browser board, whose "Watch a match" view draws its match with it. The input
// is a match's course as src/arena/report/series.rs writes it: {names, points: [{game, elo,
// elo_error, llr, ...}], lower, upper}. Nothing here fetches anything.
"use strict";

var TabulaPlot = (() => {
  const L = 58, R = 92, T = 26, B = 38;
  const COLORS = ["#1f5fa8", "#c0392b", "#2e8b57", "#8e44ad", "#d35400", "#555"];

  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
  // The labels of ticks `vs`: as many decimals as their spacing needs.
  function labels(vs) {
    const step = vs.length > 1 ? vs[1] - vs[0] : 1;
    const d = Math.max(0, Math.min(6, -Math.floor(Math.log10(step) + 1e-9)));
    return vs.map((v) => v.toFixed(d));
  }

  // Tick values between lo and hi, about n of them, at 1, 2 or 5 times a power of ten
  // (whole numbers only where `whole`).
  function ticks(lo, hi, n, whole) {
    const span = hi - lo;
    if (!(span > 0)) return [lo];
    const raw = span / n;
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    let step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || raw;
    if (whole) step = Math.max(1, Math.round(step));
    const out = [];
    for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++) out.push(Number((k * step).toPrecision(12)));
    return out;
  }

  // Splits points [x, y] at nulls into runs of drawable points.
  function runs(pts) {
    const out = [];
    let cur = [];
    for (const p of pts) {
      if (p[1] === null || p[1] === undefined || !isFinite(p[1])) {
        if (cur.length) out.push(cur);
        cur = [];
      } else cur.push(p);
    }
    if (cur.length) out.push(cur);
    return out;
  }

  // A line chart. o: {title, xlabel, ylabel, lines: [{pts: [[x, y]], color, label, band:
  // [[x, lo, hi]]}], hlines: [{y, color, label}], ymin, ymax (limits the axis may not pass),
  // empty (the message where nothing can be drawn), id, width, height (of the drawing, in its own units; the SVG fills its box's width)}.
  // Returns SVG markup.
  function chart(o) {
    const W = o.width || 900, H = o.height || 280;
    const lines = o.lines || [], hlines = o.hlines || [];
    const xs = [], ys = [];
    for (const l of lines) {
      for (const p of l.pts) if (p[1] !== null && isFinite(p[1])) { xs.push(p[0]); ys.push(p[1]); }
      for (const b of l.band || []) { xs.push(b[0]); ys.push(b[1], b[2]); }
    }
    for (const h of hlines) if (h.y !== null && isFinite(h.y)) ys.push(h.y);
    const id = o.id ? ' id="' + esc(o.id) + '"' : "";
    let s = '<svg xmlns="http://www.w3.org/2000/svg" class="plot"' + id + ' viewBox="0 0 ' + W + " " + H +
      '" width="100%" role="img" aria-label="' + esc(o.title || "plot") + '">';
    s += '<text x="' + L + '" y="16" class="plot-title">' + esc(o.title || "") + "</text>";
    if (!xs.length) {
      s += '<text x="' + W / 2 + '" y="' + H / 2 + '" text-anchor="middle" class="plot-empty">' + esc(o.empty || "no games yet") + "</text></svg>";
      return s;
    }
    let x0 = Math.min(...xs), x1 = Math.max(...xs);
    if (x1 - x0 < 1) { x0 = Math.max(0, x0 - 1); x1 = x0 + 2; }
    let y0 = Math.min(...ys), y1 = Math.max(...ys);
    if (o.ymin !== undefined) y0 = Math.max(y0, o.ymin);
    if (o.ymax !== undefined) y1 = Math.min(y1, o.ymax);
    if (!(y1 > y0)) { y0 -= 1; y1 += 1; }
    const pad = (y1 - y0) * 0.06;
    y0 -= pad; y1 += pad;
    const px = (x) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
    const py = (y) => T + ((y1 - Math.min(Math.max(y, y0), y1)) / (y1 - y0)) * (H - T - B);
    const clip = "clip" + Math.random().toString(36).slice(2, 8);
    s += '<defs><clipPath id="' + clip + '"><rect x="' + L + '" y="' + T + '" width="' + (W - L - R) +
      '" height="' + (H - T - B) + '"/></clipPath></defs>';
    s += '<rect x="' + L + '" y="' + T + '" width="' + (W - L - R) + '" height="' + (H - T - B) + '" class="plot-frame"/>';
    const yt = ticks(y0, y1, 5), yl = labels(yt);
    yt.forEach((v, i) => {
      s += '<line x1="' + L + '" x2="' + (W - R) + '" y1="' + py(v) + '" y2="' + py(v) + '" class="plot-grid"/>';
      s += '<text x="' + (L - 6) + '" y="' + (py(v) + 4) + '" text-anchor="end" class="plot-tick">' + yl[i] + "</text>";
    });
    for (const v of ticks(x0, x1, Math.max(2, Math.floor((W - L - R) / 70)), true)) {
      s += '<text x="' + px(v) + '" y="' + (H - B + 15) + '" text-anchor="middle" class="plot-tick">' + v + "</text>";
    }
    s += '<text x="' + ((L + W - R) / 2) + '" y="' + (H - 6) + '" text-anchor="middle" class="plot-label">' + esc(o.xlabel || "") + "</text>";
    s += '<text transform="translate(14,' + ((T + H - B) / 2) + ') rotate(-90)" text-anchor="middle" class="plot-label">' + esc(o.ylabel || "") + "</text>";
    s += '<g clip-path="url(#' + clip + ')">';
    lines.forEach((l, i) => {
      const color = l.color || COLORS[i % COLORS.length];
      for (const run of runs(l.band ? l.band.map((b) => [b[0], b[1], b[2]]) : [])) {
        if (run.length < 2) continue;
        const up = run.map((b) => px(b[0]) + "," + py(b[2]));
        const down = run.slice().reverse().map((b) => px(b[0]) + "," + py(b[1]));
        s += '<polygon points="' + up.concat(down).join(" ") + '" fill="' + color + '" fill-opacity="0.16" stroke="none" class="plot-band"/>';
      }
    });
    for (const h of hlines) {
      if (h.y === null || !isFinite(h.y)) continue;
      s += '<line x1="' + L + '" x2="' + (W - R) + '" y1="' + py(h.y) + '" y2="' + py(h.y) + '" stroke="' +
        (h.color || "#777") + '" stroke-dasharray="5 4" class="plot-hline"/>';
    }
    lines.forEach((l, i) => {
      const color = l.color || COLORS[i % COLORS.length];
      for (const run of runs(l.pts)) {
        if (run.length === 1) {
          s += '<circle cx="' + px(run[0][0]) + '" cy="' + py(run[0][1]) + '" r="2.5" fill="' + color + '"/>';
        } else {
          s += '<polyline points="' + run.map((p) => px(p[0]) + "," + py(p[1])).join(" ") + '" fill="none" stroke="' +
            color + '" stroke-width="1.8" class="plot-line"/>';
        }
      }
    });
    s += "</g>";
    for (const h of hlines) {
      if (h.y === null || !isFinite(h.y) || !h.label) continue;
      s += '<text x="' + (W - R + 4) + '" y="' + (py(h.y) + 4) + '" class="plot-tick" fill="' + (h.color || "#777") + '">' + esc(h.label) + "</text>";
    }
    // One line's label (its last value) by its end; several lines' labels as a legend.
    lines.forEach((l, i) => {
      const last = l.pts.filter((p) => p[1] !== null && isFinite(p[1])).pop();
      if (last && l.label) {
        const y = lines.length > 1 ? T + 14 + 16 * i : py(last[1]) - 6;
        s += '<text x="' + (W - R + 4) + '" y="' + y + '" class="plot-value" fill="' +
          (l.color || COLORS[i % COLORS.length]) + '">' + esc(l.label) + "</text>";
      }
    });
    return s + "</svg>";
  }

  // Bars over labelled buckets. o: {title, ylabel, labels: [..], series: [{name, values,
  // color}]}.
  function bars(o) {
    const W = o.width || 900, H = o.height || 280;
    const n = o.labels.length, k = o.series.length;
    const top = Math.max(1, ...o.series.flatMap((s) => s.values));
    let s = '<svg xmlns="http://www.w3.org/2000/svg" class="plot" viewBox="0 0 ' + W + " " + H + '" width="100%" role="img" aria-label="' +
      esc(o.title || "bars") + '"><text x="' + L + '" y="16" class="plot-title">' + esc(o.title || "") + "</text>";
    const cw = (W - L - R) / Math.max(n, 1);
    const py = (v) => T + (1 - v / top) * (H - T - B);
    s += '<rect x="' + L + '" y="' + T + '" width="' + (W - L - R) + '" height="' + (H - T - B) + '" class="plot-frame"/>';
    const yt = ticks(0, top, 4, true), yl = labels(yt);
    yt.forEach((v, i) => {
      s += '<line x1="' + L + '" x2="' + (W - R) + '" y1="' + py(v) + '" y2="' + py(v) + '" class="plot-grid"/>';
      s += '<text x="' + (L - 6) + '" y="' + (py(v) + 4) + '" text-anchor="end" class="plot-tick">' + yl[i] + "</text>";
    });
    o.labels.forEach((lab, i) => {
      o.series.forEach((se, j) => {
        const v = se.values[i] || 0, bw = (cw * 0.8) / k;
        const x = L + i * cw + cw * 0.1 + j * bw;
        if (v > 0) s += '<rect x="' + x + '" y="' + py(v) + '" width="' + bw + '" height="' + (py(0) - py(v)) + '" fill="' + (se.color || COLORS[j % COLORS.length]) + '"/>';
      });
      s += '<text x="' + (L + i * cw + cw / 2) + '" y="' + (H - B + 15) + '" text-anchor="middle" class="plot-tick">' + esc(lab) + "</text>";
    });
    o.series.forEach((se, j) => {
      s += '<text x="' + (W - R + 6) + '" y="' + (T + 14 + 16 * j) + '" class="plot-value" fill="' + (se.color || COLORS[j % COLORS.length]) + '">' + esc(se.name) + "</text>";
    });
    s += '<text transform="translate(14,' + ((T + H - B) / 2) + ') rotate(-90)" text-anchor="middle" class="plot-label">' + esc(o.ylabel || "") + "</text>";
    return s + "</svg>";
  }

  // Elo of the course's first engine against the second, with the band of its 95% interval.
  // size: {width, height} of the drawing, where not the default.
  function elo(course, id, size) {
    const pts = course.points.map((p) => [p.game, p.elo]);
    const band = course.points.filter((p) => p.elo !== null && p.elo_error !== null).map((p) => [p.game, p.elo - p.elo_error, p.elo + p.elo_error]);
    const last = course.points.filter((p) => p.elo !== null).pop();
    const label = last ? (last.elo >= 0 ? "+" : "") + last.elo.toFixed(1) + (last.elo_error !== null ? " \u00b1 " + last.elo_error.toFixed(1) : "") : "";
    // Elo from the interval of the later games: the first few games' bands span hundreds.
    const later = band.slice(Math.floor(band.length / 4));
    const lo = Math.min(0, ...later.map((b) => b[1]), ...pts.filter((p) => p[1] !== null).map((p) => p[1]));
    const hi = Math.max(0, ...later.map((b) => b[2]), ...pts.filter((p) => p[1] !== null).map((p) => p[1]));
    return chart({
      id: id,
      width: size && size.width,
      height: size && size.height,
      title: "Elo of " + course.names[0] + " against " + course.names[1] + ", 95% interval",
      empty: course.points.length ? "no finite Elo yet: every game went one way" : "no games yet",
      xlabel: "games", ylabel: "Elo",
      lines: [{ pts: pts, band: band, label: label, color: COLORS[0] }],
      hlines: [{ y: 0, color: "#999" }],
      ymin: Math.max(lo, -800), ymax: Math.min(hi, 800),
    });
  }

  // The SPRT's log-likelihood ratio with its lower (H0) and upper (H1) bounds.
  function llr(course, id, size) {
    const pts = course.points.map((p) => [p.game, p.llr]);
    const last = pts.filter((p) => p[1] !== null).pop();
    return chart({
      id: id,
      width: size && size.width,
      height: size && size.height,
      title: "SPRT log-likelihood ratio of " + course.names[0] + " against " + course.names[1],
      xlabel: "games", ylabel: "LLR",
      lines: [{ pts: pts, label: last ? last[1].toFixed(2) : "", color: COLORS[3] }],
      hlines: [
        { y: course.upper, color: "#2e8b57", label: "H1 " + (course.upper === null ? "" : course.upper.toFixed(2)) },
        { y: course.lower, color: "#c0392b", label: "H0 " + (course.lower === null ? "" : course.lower.toFixed(2)) },
        { y: 0, color: "#bbb" },
      ],
    });
  }

  return { chart, bars, elo, llr, esc, ticks };
})();
