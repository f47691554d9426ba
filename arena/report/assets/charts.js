// The charts of chips over hands, raw and luck-adjusted.

function linePath(points, x, y) {
  return points.map((p, i) => (i ? "L" : "M") + x(p[0]).toFixed(1) + " " + y(p[1]).toFixed(1)).join("");
}

function drawCharts(main) {
  const charts = DATA.charts || [];
  if (!charts.length) return;
  let maxX = 1;
  let low = 0;
  let high = 0;
  for (const chart of charts) {
    for (const line of [chart.raw, chart.adjusted || []]) {
      for (const [px, py] of line) {
        maxX = Math.max(maxX, px);
        low = Math.min(low, py);
        high = Math.max(high, py);
      }
    }
  }
  if (high === low) high = low + 1;
  const W = 420, H = 210, L = 52, R = 12, T = 12, B = 28;
  const x = (v) => L + (v / maxX) * (W - L - R);
  const y = (v) => T + ((high - v) / (high - low)) * (H - T - B);
  const grid = el("div", { class: "grid" });
  charts.forEach((chart, index) => {
    const color = COLORS[index % COLORS.length];
    const svg = sv("svg", { class: "chart chips", viewBox: `0 0 ${W} ${H}`, role: "img",
      "aria-label": `chips of ${chart.bot} over its hands` });
    svg.appendChild(sv("line", { class: "axis", x1: L, x2: L, y1: T, y2: H - B }));
    svg.appendChild(sv("line", { class: "axis", x1: L, x2: W - R, y1: H - B, y2: H - B }));
    svg.appendChild(sv("line", { class: "zero", x1: L, x2: W - R, y1: y(0), y2: y(0) }));
    for (const value of [high, low]) {
      svg.appendChild(sv("text", { x: L - 4, y: y(value) + 4, "text-anchor": "end", text: signed(value) }));
    }
    svg.appendChild(sv("text", { x: L, y: H - 8, text: "0" }));
    svg.appendChild(sv("text", { x: W - R, y: H - 8, "text-anchor": "end", text: plain(maxX) + " hands" }));
    let gap = null;
    if (chart.adjusted) {
      // The luck the duplicate deals take out: the area between the two lines, shaded,
      // and the widest gap in the legend (both lines end at the same total).
      const back = chart.adjusted.slice().reverse();
      svg.appendChild(sv("path", { class: "gap", fill: color, "fill-opacity": 0.18, stroke: "none",
        d: linePath(chart.raw.concat(back), x, y) + "Z" }));
      svg.appendChild(sv("path", { class: "adjusted", stroke: color, d: linePath(chart.adjusted, x, y) }));
      gap = widestGap(chart.raw, chart.adjusted);
    }
    svg.appendChild(sv("path", { class: "raw", stroke: color, d: linePath(chart.raw, x, y) }));
    const last = chart.raw[chart.raw.length - 1];
    const lastAdjusted = chart.adjusted ? chart.adjusted[chart.adjusted.length - 1] : null;
    grid.appendChild(el("div", { class: "card-panel", "data-bot": chart.bot },
      el("h3", { text: chart.bot }), svg,
      el("div", { class: "legend" },
        el("span", {}, el("span", { class: "swatch", style: `background:${color}` }),
          `raw: ${signed(last ? last[1] : 0)} chips`),
        lastAdjusted ? el("span", {}, el("span", { class: "swatch",
          style: `background:repeating-linear-gradient(90deg, ${color} 0 6px, transparent 6px 10px)` }),
        `duplicate-adjusted: ${signed(lastAdjusted[1])}`) : null,
        gap ? el("span", { class: "gap-size", text:
          `widest gap: ${signed(gap[1])} chips of luck at hand ${plain(gap[0])}` }) : null)));
  });
  const notes = [el("p", { class: "note", text: "Each bot's chips won, summed over its hands in plan order " +
    "(all charts share their scales)." })];
  for (const note of DATA.notes) {
    if (isChartNote(note)) notes.push(el("p", { class: "note chart-note", text: note }));
  }
  if (charts.some((chart) => chart.adjusted)) {
    notes.push(el("p", { class: "note", text: "The shaded area between the two lines is the luck of " +
      "the cards that the duplicate deals cancel: the raw line carries a deal's luck until the same " +
      "cards are played from the other seats, the dashed line never does. Both end at the same total." }));
  }
  main.appendChild(section("charts", "Chips over hands", grid, notes));
}

// The raw line minus the adjusted one where that is widest: [hands, chips]. The adjusted
// line is read between its points (it is drawn straight between them).
function widestGap(raw, adjusted) {
  let best = null;
  let j = 0;
  for (const [px, py] of raw) {
    while (j + 1 < adjusted.length && adjusted[j + 1][0] < px) j++;
    const [ax, ay] = adjusted[j];
    const next = adjusted[Math.min(j + 1, adjusted.length - 1)];
    const t = next[0] > ax ? Math.min(1, Math.max(0, (px - ax) / (next[0] - ax))) : 0;
    const gap = py - (ay + t * (next[1] - ay));
    if (!best || Math.abs(gap) > Math.abs(best[1])) best = [px, Math.round(gap)];
  }
  return best && best[1] !== 0 ? best : null;
}
