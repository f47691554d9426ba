// The latency of each bot.

function drawLatency(main) {
  const rows = DATA.latency || [];
  if (!rows.length) return;
  let low = Infinity;
  let high = 0;
  for (const row of rows) {
    for (const [a, b] of row.bins) {
      low = Math.min(low, Math.max(a, 0.001));
      high = Math.max(high, b);
    }
    for (const v of [row.p50, row.p99, row.max]) {
      if (v > 0) { low = Math.min(low, v); high = Math.max(high, v); }
    }
  }
  if (!isFinite(low)) { low = 0.01; high = 1; }
  const lo = Math.floor(Math.log10(low));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(high)));
  const W = 420, H = 170, L = 26, R = 30, T = 10, B = 30;
  const x = (ms) => L + ((Math.log10(Math.max(ms, Math.pow(10, lo))) - lo) / (hi - lo)) * (W - L - R);
  const grid = el("div", { class: "grid" });
  for (const row of rows) {
    const svg = sv("svg", { class: "chart latency", viewBox: `0 0 ${W} ${H}`, role: "img",
      "aria-label": `decision latency of ${row.bot}` });
    svg.appendChild(sv("line", { class: "axis", x1: L, x2: W - R, y1: H - B, y2: H - B }));
    for (let p = lo; p <= hi; p++) {
      svg.appendChild(sv("line", { class: "axis", x1: x(10 ** p), x2: x(10 ** p), y1: H - B, y2: H - B + 4 }));
      svg.appendChild(sv("text", { x: x(10 ** p), y: H - B + 16, "text-anchor": "middle",
        text: 10 ** p >= 1000 ? `${10 ** p / 1000} s` : `${+(10 ** p).toPrecision(1)} ms` }));
    }
    const most = Math.max(1, ...row.bins.map((bin) => bin[2]));
    for (const [a, b, count] of row.bins) {
      const left = x(Math.max(a, Math.pow(10, lo)));
      const height = ((H - T - B) * count) / most;
      svg.appendChild(sv("rect", { class: "bar", x: left, y: H - B - height,
        width: Math.max(1.5, x(b) - left - 1), height: height }, sv("title", { text: `${plain(a, 3)}\u2013${plain(b, 3)} ms: ${count}` })));
    }
    for (const [name, value] of [["p50", row.p50], ["p99", row.p99]]) {
      if (value > 0) svg.appendChild(sv("line", { class: name, x1: x(value), x2: x(value), y1: T, y2: H - B }));
    }
    grid.appendChild(el("div", { class: "card-panel", "data-bot": row.bot }, el("h3", { text: row.bot }), svg,
      el("div", { class: "legend" },
        el("span", { text: `${plain(row.count)} replies` }),
        el("span", {}, el("span", { class: "swatch", style: "background:#1a7f37" }), `p50 ${plain(row.p50, 3)} ms`),
        el("span", {}, el("span", { class: "swatch", style: "background:#c62828" }), `p99 ${plain(row.p99, 3)} ms`),
        el("span", { text: `max ${plain(row.max, 3)} ms` }),
        row.bins.length ? null : el("span", { text: "(no histogram recorded: the markers only)" }))));
  }
  main.appendChild(section("latency", "Decision latency", grid,
    el("p", { class: "note", text: "How long each bot took to reply, on a log scale (bars: replies per bin)." })));
}
