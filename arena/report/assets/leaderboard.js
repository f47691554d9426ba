// The leaderboard: each bot's rate with its interval bar, the rating, and the
// sequential tests.

function intervalBar(estimate, low, high) {
  const width = 160;
  const x = (value) => 6 + ((value - low) / (high - low || 1)) * (width - 12);
  const svg = sv("svg", { class: "interval", viewBox: `0 0 ${width} 18`,
    role: "img", "aria-label": "95% interval" });
  svg.appendChild(sv("line", { x1: x(0), x2: x(0), y1: 1, y2: 17, stroke: "#9aa3af",
    "stroke-dasharray": "2 2" }));
  if (estimate.low !== null && estimate.high !== null) {
    svg.appendChild(sv("line", { x1: x(estimate.low), x2: x(estimate.high), y1: 9, y2: 9,
      stroke: "#5d6776", "stroke-width": 3, "stroke-linecap": "round" }));
  }
  svg.appendChild(sv("circle", { cx: x(estimate.mean), cy: 9, r: 4,
    fill: estimate.mean >= 0 ? "#1a7f37" : "#c62828" }));
  return svg;
}

function drawLeaderboard(main) {
  // The site's hand viewer: the match's own page shows its results.
  if (DATA.on_site) return;
  const rows = DATA.leaderboard.rows || [];
  const hasRates = rows.some((row) => row.estimate.n > 0);
  const hasBoth = hasRates && rows.some((row) => row.adjusted);
  const hasRatings = rows.some((row) => row.rating);
  const hasPlaces = rows.some((row) => row.place !== null && row.place !== undefined);
  let low = 0;
  let high = 0;
  for (const row of rows) {
    const e = scored(row);
    low = Math.min(low, e.low === null ? e.mean : e.low);
    high = Math.max(high, e.high === null ? e.mean : e.high);
  }
  const head = ["#", "bot"];
  // Each number names its kind; a match's units are its hands, counted once.
  const unitColumn = hasRates && DATA.unit !== "hands";
  if (hasBoth) head.push("raw mbb/hand (95%)", "adjusted mbb/hand (95%)", "luck");
  else if (hasRates) head.push("raw mbb/hand (95%)");
  if (hasRates) head.push("interval", `${hasBoth ? DATA.score : "raw"} bb/100`);
  if (unitColumn) head.push(DATA.unit);
  head.push("hands", "chips won");
  if (hasRatings) head.push("rating \u03bc \u00b1 \u03c3");
  if (hasPlaces) head.push("avg place");
  head.push("faults");
  const table = el("table", { class: "leaderboard" },
    el("thead", {}, el("tr", {}, head.map((text, i) =>
      el("th", { class: i === 1 ? "name" : text === "interval" ? "center" : "", text: text })))));
  const body = el("tbody");
  for (const row of rows) {
    const e = scored(row);
    const cells = [el("td", { text: row.rank }), el("td", { class: "name", text: row.bot })];
    // The sign mark goes with the score that ranks; the other is shown without one.
    const rate = (estimate, cls) => el("td", { class: `${cls} ${tone(estimate.mean)}` },
      rateText(estimate), el("span", { class: "mark", text: estimate === e ? estimate.sign : "" }));
    if (hasBoth) {
      cells.push(rate(row.estimate, "raw"));
      cells.push(row.adjusted ? rate(row.adjusted, "adjusted") : el("td", { class: "adjusted", text: "" }));
      cells.push(el("td", { class: "luck", text: row.luck === null ? "" : signed(row.luck, 1) }));
    } else if (hasRates) {
      cells.push(rate(row.estimate, "raw"));
    }
    if (hasRates) {
      cells.push(el("td", { class: "center" }, intervalBar(e, low, high)));
      cells.push(el("td", { class: tone(e.bb100), text: signed(e.bb100, 2) }));
    }
    if (unitColumn) cells.push(el("td", { text: plain(row.deals) }));
    cells.push(el("td", { text: plain(row.hands) }));
    cells.push(el("td", { class: tone(row.chips), text: signed(row.chips) }));
    if (hasRatings) {
      cells.push(el("td", { text: row.rating ? `${plain(row.rating.mu, 1)} \u00b1 ${plain(row.rating.sigma, 1)}` : "" }));
    }
    if (hasPlaces) cells.push(el("td", { text: plain(row.place, 2) }));
    cells.push(el("td", { class: row.faults ? "neg" : "", text: plain(row.faults) }));
    body.appendChild(el("tr", { "data-bot": row.bot }, cells));
  }
  table.appendChild(body);
  const ranked = hasBoth ? ` Ranked by the ${DATA.score} result; the interval bar and bb/100 are of it.` : "";
  const notes = [el("p", { class: "note", text: hasRates
    ? `mbb/hand: milli-big-blinds won per hand (10 mbb/hand = 1 bb/100), with the 95% ` +
      `confidence interval (Student's t) over ${DATA.unit}; + / \u2212 marks a rate whose ` +
      `interval excludes 0.` + ranked
    : "Freezeouts are ranked by rating (\u03bc \u2212 3\u03c3, openskill's Plackett-Luce)." })];
  if (DATA.adjustment) {
    notes.unshift(el("p", { class: "note adjustment", id: "adjustment" },
      DATA.adjustment + " Luck = raw \u2212 adjusted. ",
      el("span", { class: "estimator", text: `Estimator: ${DATA.estimator}.` })));
  }
  if (DATA.lead) notes.unshift(el("p", { class: "note lead", id: "lead", text: DATA.lead }));
  for (const test of DATA.sprt || []) {
    const llr = typeof test.llr === "number" ? plain(test.llr, 2) : String(test.llr);
    notes.push(el("p", { class: "note", text:
      `SPRT ${(test.pair || []).join(" vs ")}: ${test.text || test.status || ""} ` +
      `(LLR ${llr}, bounds ${plain(test.lower_bound, 2)} / ${plain(test.upper_bound, 2)}, ${plain(test.n)} deals)` }));
  }
  main.appendChild(section("leaderboard", "Leaderboard", el("div", { class: "scroll", tabindex: "0" }, table), notes));
}
