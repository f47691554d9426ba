// The arena report's script: draws the tables, charts and the hand viewer from the JSON
// document embedded in the page. It loads nothing and sends nothing. Every string from
// the data (bot names, messages) is untrusted: it goes on the page as text (textContent
// or attribute values), never as HTML.
"use strict";

(function () {
  const DATA = JSON.parse(document.getElementById("report-data").textContent);
  const SVG_NS = "http://www.w3.org/2000/svg";
  const COLORS = ["#1f6feb", "#d9480f", "#2b8a3e", "#ae3ec9", "#e67700", "#0c8599",
    "#c2255c", "#5c940d", "#364fc7", "#862e9c"];
  const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };

  // -- small helpers -----------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function sv(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function setAttrs(node, attrs) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = String(value);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, String(value));
    }
  }

  function append(node, children) {
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    }
  }

  function signed(value, digits) {
    if (value === null || value === undefined) return "?";
    const text = Math.abs(value).toLocaleString("en-US", {
      maximumFractionDigits: digits || 0, minimumFractionDigits: digits || 0 });
    if (value > 0) return "+" + text;
    if (value < 0) return "\u2212" + text;
    return text;
  }

  function plain(value, digits) {
    if (value === null || value === undefined) return "";
    return Number(value).toLocaleString("en-US", { maximumFractionDigits: digits || 0 });
  }

  function tone(value) {
    return value > 0 ? "pos" : value < 0 ? "neg" : "";
  }

  function section(id, title, ...children) {
    return el("section", { id: id }, el("h2", { text: title }), ...children);
  }

  function handHref(id) {
    return "#hand=" + encodeURIComponent(id);
  }

  const handsById = new Map(DATA.hands.map((hand) => [hand.id, hand]));

  // -- summary -----------------------------------------------------------------------

  function drawSummary() {
    const header = document.getElementById("summary");
    header.appendChild(el("ul", { class: "facts" },
      DATA.facts.map(([label, value]) => el("li", {}, el("b", { text: label }), value))));
    const links = [["leaderboard", "Leaderboard"], ["crosstable", "Crosstable"],
      ["charts", "Chips over hands"], ["luck", "Luck per match"], ["places", "Finishing places"], ["faults", "Faults"],
      ["latency", "Latency"], ["hands", "Hands"]];
    header.appendChild(el("nav", { class: "toc" },
      links.map(([id, text]) => el("a", { href: "#" + id, "data-section": id, text: text }))));
    for (const note of DATA.notes) {
      if (!isChartNote(note)) header.appendChild(el("p", { class: "note", text: note }));
    }
  }

  // The sentence that explains the dashed (duplicate-adjusted) line is drawn by the
  // charts it explains, not under the title.
  function isChartNote(note) {
    return /^The dashed line/.test(note);
  }

  // -- leaderboard -------------------------------------------------------------------

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

  // The estimate of the score that ranks (raw or luck-adjusted) of a row or a cell.
  function scored(item) {
    return DATA.score === "adjusted" && item.adjusted ? item.adjusted : item.estimate || item;
  }

  function rateText(e) {
    const half = e.half === null ? "\u00b1?" : "\u00b1" + plain(e.half);
    return signed(e.mean) + " " + half;
  }

  function drawLeaderboard(main) {
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
    main.appendChild(section("leaderboard", "Leaderboard", el("div", { class: "scroll" }, table), notes));
  }

  // -- crosstable --------------------------------------------------------------------

  function heat(mean, biggest) {
    if (mean === null) return "transparent";
    const strength = Math.min(1, Math.abs(mean) / (biggest || 1));
    const alpha = 0.12 + 0.6 * strength;
    return mean >= 0 ? `rgba(26, 127, 55, ${alpha})` : `rgba(198, 40, 40, ${alpha})`;
  }

  function drawCrosstable(main) {
    const table = DATA.crosstable;
    if (!table) return;
    const cells = new Map(table.cells.map((cell) => [cell.row + "\u0000" + cell.column, cell]));
    const biggest = Math.max(1, ...table.cells.map((cell) => Math.abs(scored(cell).mean || 0)));
    // Rows and columns in the leaderboard's order, numbered by its ranks.
    const ranked = (DATA.leaderboard.rows || []).filter((row) => table.bots.includes(row.bot));
    const order = ranked.map((row) => row.bot).concat(table.bots.filter((bot) => !ranked.some((r) => r.bot === bot)));
    const rank = new Map(ranked.map((row) => [row.bot, row.rank]));
    const label = (bot, i) => `${rank.has(bot) ? rank.get(bot) : i + 1}. ${bot}`;
    const head = el("tr", {}, el("th", { class: "name", text: "row bot vs column bot" }),
      order.map((bot, i) => el("th", { class: "column", title: bot, text: label(bot, i) })));
    const body = el("tbody");
    order.forEach((row, i) => {
      const tr = el("tr", { "data-bot": row }, el("th", { class: "name", text: label(row, i) }));
      for (const column of order) {
        if (row === column) {
          tr.appendChild(el("td", { class: "self", text: "\u2014" }));
          continue;
        }
        const cell = cells.get(row + "\u0000" + column);
        if (!cell) {
          tr.appendChild(el("td", { class: "cell", text: "" }));
          continue;
        }
        // The score that ranks, with its mark; the other score under it, smaller.
        const shown = scored(cell);
        const other = cell.adjusted ? (shown === cell.adjusted ? cell : cell.adjusted) : null;
        const otherName = shown === cell.adjusted ? "raw" : "adjusted";
        const luck = cell.luck === null || cell.luck === undefined ? "" : `, luck ${signed(cell.luck, 1)}`;
        tr.appendChild(el("td", {
          class: "cell", style: `background:${heat(shown.mean, biggest)}`,
          title: `${row} against ${column}: ${rateText(shown)} mbb/hand over ${shown.n} deals (${DATA.score}` +
            (other ? `; ${otherName} ${rateText(other)}${luck})` : ")"),
        }, rateText(shown), el("span", { class: "mark", text: cell.mark }),
        other ? el("span", { class: "other", text: `${otherName} ${rateText(other)}` }) : null));
      }
      body.appendChild(tr);
    });
    const legend = el("div", { class: "legend" },
      el("span", {}, el("span", { class: "swatch", style: `background:${heat(biggest, biggest)}` }), "row bot wins"),
      el("span", {}, el("span", { class: "swatch", style: `background:${heat(-biggest, biggest)}` }), "row bot loses"),
      el("span", { text: "+ / \u2212: the 95% interval excludes 0; ++ / \u2212\u2212: the 99% interval does" +
        (table.cells.some((cell) => cell.adjusted) ? ` (of the ${DATA.score} result, above; the other under it)` : "") }));
    main.appendChild(section("crosstable", "Crosstable (mbb/hand of the row bot against the column bot)",
      el("div", { class: "scroll" }, el("table", { class: "heat" }, el("thead", {}, head), body)), legend));
  }

  // -- chips over hands --------------------------------------------------------------

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

  // -- luck per match ----------------------------------------------------------------

  // How much of each match's result was luck: per seat, raw and adjusted, in chips and in
  // mbb/hand, and the luck between them (raw minus adjusted).
  function drawLuck(main) {
    const matches = DATA.luck || [];
    if (!matches.length) return;
    const head = ["match", "bot", "hands", "raw chips", "adjusted chips", "luck chips",
      "raw mbb/hand", "adjusted mbb/hand", "luck mbb/hand"];
    const body = el("tbody");
    for (const match of matches) {
      match.seats.forEach((seat, index) => {
        body.appendChild(el("tr", { "data-match": match.match, "data-bot": seat.bot },
          el("td", { class: "text", text: index === 0 ? match.match : "" }),
          el("td", { class: "name", text: seat.bot }),
          el("td", { text: plain(seat.hands) }),
          el("td", { class: tone(seat.raw), text: signed(seat.raw) }),
          el("td", { class: tone(seat.adjusted), text: signed(seat.adjusted, 1) }),
          el("td", { class: "luck " + tone(seat.luck), text: signed(seat.luck, 1) }),
          el("td", { class: tone(seat.raw_mbb), text: signed(seat.raw_mbb, 1) }),
          el("td", { class: tone(seat.adjusted_mbb), text: signed(seat.adjusted_mbb, 1) }),
          el("td", { class: "luck " + tone(seat.luck_mbb), text: signed(seat.luck_mbb, 1) })));
      });
    }
    const table = el("table", { class: "luck" },
      el("thead", {}, el("tr", {}, head.map((text, i) => el("th", { class: i < 2 ? "name" : "", text: text })))),
      body);
    main.appendChild(section("luck", "Luck per match", el("div", { class: "scroll" }, table),
      el("p", { class: "note", text: "Each seat's result in each match: raw (the chips won), adjusted " +
        "(the luck-adjusted result) and the luck between them (raw \u2212 adjusted), in chips and in " +
        `milli-big-blinds per hand. Estimator: ${DATA.estimator}.` })));
  }

  // -- finishing places --------------------------------------------------------------

  function drawPlaces(main) {
    const places = DATA.places;
    if (!places) return;
    let table;
    if (places.match) {
      table = el("table", {}, el("thead", {}, el("tr", {},
        ["place", "bot", "eliminated in hand", "final stack"].map((t, i) => el("th", { class: i === 1 ? "name" : "", text: t })))),
      el("tbody", {}, places.match.map((row) => el("tr", {},
        el("td", { text: row.place === null ? "" : row.place }), el("td", { class: "name", text: row.bot }),
        el("td", { text: row.eliminated === null ? "\u2014" : row.eliminated }),
        el("td", { text: plain(row.final_stack) })))));
    } else {
      const head = ["bot"];
      for (let place = 1; place <= places.places; place++) head.push(ordinal(place));
      head.push("games", "avg place", "rating \u03bc \u00b1 \u03c3");
      table = el("table", { class: "places" },
        el("thead", {}, el("tr", {}, head.map((t, i) => el("th", { class: i === 0 ? "name" : "", text: t })))),
        el("tbody", {}, places.rows.map((row) => {
          const games = row.counts.reduce((a, b) => a + b, 0);
          return el("tr", {}, el("td", { class: "name", text: row.bot }),
            row.counts.map((count) => el("td", { title: `${count} of ${games}` }, placeBar(count, games), " " + count)),
            el("td", { text: games }), el("td", { text: plain(row.average, 2) }),
            el("td", { text: row.rating ? `${plain(row.rating.mu, 1)} \u00b1 ${plain(row.rating.sigma, 1)}` : "" }));
        })));
    }
    main.appendChild(section("places", "Finishing places", el("div", { class: "scroll" }, table)));
  }

  function ordinal(n) {
    const suffix = n % 10 === 1 && n !== 11 ? "st" : n % 10 === 2 && n !== 12 ? "nd" : n % 10 === 3 && n !== 13 ? "rd" : "th";
    return n + suffix;
  }

  function placeBar(count, total) {
    const width = 50;
    const svg = sv("svg", { width: width, height: 10, viewBox: `0 0 ${width} 10` });
    svg.appendChild(sv("rect", { x: 0, y: 1, width: width, height: 8, fill: "#eef1f5" }));
    svg.appendChild(sv("rect", { x: 0, y: 1, width: total ? (width * count) / total : 0, height: 8, fill: "#1f6feb" }));
    return svg;
  }

  // -- faults ------------------------------------------------------------------------

  function drawFaults(main) {
    const faults = DATA.faults || [];
    let body;
    if (!faults.length) {
      body = el("p", { class: "note", text: "No faults: every bot answered every request in time and by the rules." });
    } else {
      body = el("table", { class: "faults" },
        el("thead", {}, el("tr", {}, ["bot", "kind", "count", "first", "message"].map(
          (t, i) => el("th", { class: i === 0 || i > 2 ? "text" : "", text: t })))),
        el("tbody", {}, faults.map((row) => {
          const example = row.example;
          let where = "";
          if (example) {
            const id = `${example.match}/${example.hand}`;
            where = example.hand === null || example.hand === undefined
              ? `${example.match} (outside a hand)`
              : handsById.has(id) ? el("a", { href: handHref(id), text: id }) : id;
          }
          return el("tr", {}, el("td", { class: "text", text: row.bot }), el("td", { text: row.kind }),
            el("td", { text: plain(row.count) }), el("td", { class: "text" }, where),
            el("td", { class: "text", text: example ? example.message : "" }));
        })));
    }
    main.appendChild(section("faults", "Faults", el("div", { class: "scroll" }, body)));
  }

  // -- latency -----------------------------------------------------------------------

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

  // -- the list of hands -------------------------------------------------------------

  let listRows = new Map();

  function drawHandList(main) {
    const net = (hand, bot) => hand.seats.filter((seat) => seat.name === bot).reduce((sum, seat) => sum + seat.net, 0);
    const netText = (hand) => hand.seats.map((seat) => `${seat.name} ${signed(seat.net)}`).join(", ");
    for (const hand of DATA.hands) {
      const winners = hand.result.winners.map((w) => `${w.name} (${w.why})`).join("; ");
      const tr = el("tr", { "data-hand": hand.id },
        el("td", { class: "id" }, el("a", { href: handHref(hand.id), text: hand.id })),
        el("td", { class: "text", text: hand.seats.map((seat) => seat.name).join(", ") }),
        el("td", { text: plain(hand.pot) }),
        el("td", { class: "text", text: winners }),
        el("td", { class: "text net", text: netText(hand) }),
        el("td", {}, el("span", { class: "tag " + hand.why.replace(" ", "-"), text: hand.why })));
      listRows.set(hand.id, tr);
    }
    const body = el("tbody", {}, [...listRows.values()]);
    const table = el("table", {}, el("thead", {}, el("tr", {},
      ["hand", "seats", "pot", "won by", "net by seat", "shown because"].map((t, i) => el("th", { class: i === 2 ? "" : "text", text: t })))),
    body);
    // "Where did my bot lose its chips?": the hands of one bot, its biggest losses first.
    const bots = [...new Set(DATA.hands.flatMap((hand) => hand.seats.map((seat) => seat.name)))].sort();
    const botChoice = el("select", { id: "hand-bot", "aria-label": "bot" },
      el("option", { value: "", text: "every bot" }), bots.map((bot) => el("option", { value: bot, text: bot })));
    const orderChoice = el("select", { id: "hand-order", "aria-label": "order" },
      el("option", { value: "plan", text: "in playing order" }),
      el("option", { value: "loss", text: "biggest loss first" }));
    const relist = () => {
      const bot = botChoice.value;
      let hands = DATA.hands.filter((hand) => !bot || hand.seats.some((seat) => seat.name === bot));
      if (orderChoice.value === "loss") {
        // One bot: its own loss; every bot: the biggest loss of any seat.
        const loss = (hand) => bot ? net(hand, bot) : Math.min(...hand.seats.map((seat) => seat.net));
        hands = hands.map((hand, i) => [loss(hand), i, hand]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((e) => e[2]);
      }
      body.replaceChildren(...hands.map((hand) => listRows.get(hand.id)));
      count.textContent = `${hands.length} of ${DATA.hands.length} hands`;
    };
    const count = el("span", { class: "note", id: "hand-count" });
    botChoice.addEventListener("change", relist);
    orderChoice.addEventListener("change", relist);
    const filters = el("p", { class: "filters" }, "Show the hands of ", botChoice, " ", orderChoice, " ", count);
    const how = el("p", { class: "note" },
      `This page holds ${DATA.hands.length} of the run's ${plain(DATA.hands_total)} hands ` +
      "(every hand with a fault up to half of them, the biggest pots, and an even sample). " +
      "To see any other hand, write a report that holds it: ", el("code", { text: DATA.open_other }));
    const keys = el("p", { class: "note" }, "Open a hand, then step with ", el("kbd", { text: "\u2190" }), " ",
      el("kbd", { text: "\u2192" }), " (", el("kbd", { text: "Home" }), " / ", el("kbd", { text: "End" }),
      " for the first and last step). A link to a hand is ", el("code", { text: "report.html#hand=MATCH/N" }), ".");
    main.appendChild(section("hands", "Hands", how, keys, filters, el("div", { class: "hand-list" }, table)));
    relist();
  }

  // -- the hand viewer ---------------------------------------------------------------

  const viewer = { hand: null, step: 0, root: null };

  function cardNode(text, x, y, w, h, opts) {
    const options = opts || {};
    const rank = text.slice(0, text.length - 1).replace("T", "10");
    const suit = text.slice(-1);
    const red = suit === "h" || suit === "d";
    const group = sv("g", { class: "card" + (options.fresh ? " fresh" : ""), "data-card": text });
    group.appendChild(sv("rect", { x: x, y: y, width: w, height: h, rx: 4, fill: "#fff",
      stroke: options.fresh ? "#f59f00" : "#8a94a3", "stroke-width": options.fresh ? 2.5 : 1 }));
    group.appendChild(sv("text", { x: x + w / 2, y: y + h * 0.45, "text-anchor": "middle",
      "font-size": h * 0.36, "font-weight": 700, fill: red ? "#c62828" : "#1d2430", text: rank }));
    group.appendChild(sv("text", { x: x + w / 2, y: y + h * 0.86, "text-anchor": "middle",
      "font-size": h * 0.36, fill: red ? "#c62828" : "#1d2430", text: SUITS[suit] || suit }));
    return group;
  }

  function drawViewer(main) {
    viewer.root = el("section", { id: "viewer", hidden: true });
    main.appendChild(viewer.root);
    document.addEventListener("keydown", (event) => {
      if (!viewer.hand || event.altKey || event.ctrlKey || event.metaKey) return;
      const last = viewer.hand.steps.length - 1;
      const moves = { ArrowLeft: viewer.step - 1, ArrowRight: viewer.step + 1, Home: 0, End: last };
      if (!(event.key in moves)) return;
      event.preventDefault();
      showStep(Math.max(0, Math.min(last, moves[event.key])));
    });
  }

  function openHand(id) {
    const hand = handsById.get(id);
    const root = viewer.root;
    root.hidden = false;
    root.replaceChildren();
    for (const row of listRows.values()) row.classList.remove("current");
    if (!hand) {
      viewer.hand = null;
      root.appendChild(el("h2", { text: `Hand ${id}` }));
      root.appendChild(el("p", { class: "missing", text: `Hand ${id} is not in this report.` }));
      root.appendChild(el("p", { class: "note" }, "Write a report that holds it: ",
        el("code", { text: DATA.open_other.replace("MATCH/N", id) })));
      root.scrollIntoView();
      return;
    }
    viewer.hand = hand;
    if (listRows.has(id)) listRows.get(id).classList.add("current");
    const [small, big, ante] = hand.blinds;
    const game = `${hand.variant.replace(/_/g, " ")}, ${hand.structure.replace(/_/g, "-")}, blinds ${small}/${big}` +
      (ante ? `, ante ${ante}` : "");
    root.appendChild(el("div", { class: "viewer-head" }, el("h2", { text: `Hand ${hand.id}` }),
      el("span", { class: "note", text: game }), el("span", { class: "tag " + hand.why.replace(" ", "-"), text: hand.why })));
    const controls = el("div", { class: "controls" },
      el("button", { type: "button", "data-go": "first", title: "first step (Home)", text: "\u00ab first", onclick: () => showStep(0) }),
      el("button", { type: "button", "data-go": "back", title: "back (\u2190)", text: "\u2039 back", onclick: () => showStep(viewer.step - 1) }),
      el("button", { type: "button", "data-go": "next", title: "next (\u2192)", text: "next \u203a", onclick: () => showStep(viewer.step + 1) }),
      el("button", { type: "button", "data-go": "last", title: "last step (End)", text: "last \u00bb", onclick: () => showStep(hand.steps.length - 1) }),
      el("span", { class: "counter", id: "viewer-counter" }));
    const log = el("ol", { class: "log", id: "viewer-log" },
      hand.steps.map((step, index) => el("li", { text: step.say, onclick: () => showStep(index) })));
    const result = el("div", { class: "result", id: "viewer-result" });
    const left = el("div", {}, el("div", { id: "viewer-table" }), el("div", { class: "say", id: "viewer-say" }), result);
    root.appendChild(controls);
    root.appendChild(el("div", { class: "viewer-body" }, left, el("div", {}, el("h3", { text: "Actions" }), log)));
    if (hand.draws.length) root.appendChild(drawTable(hand));
    showStep(0);
    root.scrollIntoView();
  }

  function drawTable(hand) {
    return el("div", { class: "scroll draws" }, el("h3", { text: "The draw" }),
      el("table", {}, el("thead", {}, el("tr", {}, ["seat", "discarded", "drew"].map((t) => el("th", { class: "text", text: t })))),
        el("tbody", {}, hand.draws.map((draw) => el("tr", {},
          el("td", { class: "text", text: draw.name }),
          el("td", { class: "text", text: draw.discarded.join(" ") || "\u2014 (stood pat)" }),
          el("td", { class: "text", text: draw.drawn.join(" ") || "\u2014" }))))));
  }

  function showStep(index) {
    const hand = viewer.hand;
    if (!hand) return;
    const last = hand.steps.length - 1;
    viewer.step = Math.max(0, Math.min(last, index));
    const step = hand.steps[viewer.step];
    const holder = document.getElementById("viewer-table");
    holder.replaceChildren(tableSvg(hand, step));
    document.getElementById("viewer-say").textContent = step.say;
    document.getElementById("viewer-counter").textContent = `step ${viewer.step + 1} of ${last + 1}`;
    for (const button of viewer.root.querySelectorAll("button[data-go]")) {
      const go = button.getAttribute("data-go");
      button.disabled = (go === "first" || go === "back") ? viewer.step === 0 : viewer.step === last;
    }
    const items = document.getElementById("viewer-log").children;
    for (let i = 0; i < items.length; i++) {
      items[i].className = i === viewer.step ? "current" : i > viewer.step ? "future" : "";
    }
    if (items[viewer.step]) {
      const log = document.getElementById("viewer-log");
      const item = items[viewer.step];
      if (item.offsetTop < log.scrollTop || item.offsetTop > log.scrollTop + log.clientHeight - 24) {
        log.scrollTop = item.offsetTop - log.clientHeight / 2;
      }
    }
    const result = document.getElementById("viewer-result");
    result.replaceChildren();
    if (viewer.step === last) {
      for (const winner of hand.result.winners) {
        result.appendChild(el("div", {}, el("b", { text: winner.name }), ` wins ${plain(winner.amount)} `,
          el("span", { class: "why", text: `(${winner.why})` })));
      }
      result.appendChild(el("ul", { class: "nets", id: "viewer-nets" }, hand.seats.map((seat) =>
        el("li", { class: tone(seat.net), "data-net": seat.net }, el("b", { text: seat.name }),
          ` ${signed(seat.net)} this hand`))));
    }
  }

  function tableSvg(hand, step) {
    const W = 900, H = 552, cx = 450, cy = 268;
    const svg = sv("svg", { class: "table-view", viewBox: `0 0 ${W} ${H}`, role: "img",
      "aria-label": `hand ${hand.id}, step ${viewer.step + 1}` });
    svg.appendChild(sv("ellipse", { cx: cx, cy: cy, rx: 322, ry: 168, fill: "#0d3f25" }));
    svg.appendChild(sv("ellipse", { cx: cx, cy: cy, rx: 308, ry: 156, fill: "#17623b" }));
    // The board: five places, the dealt ones face up.
    const board = sv("g", { class: "board" });
    for (let i = 0; i < 5 && hand.variant !== "five_card_draw"; i++) {
      const x = cx - 140 + i * 56;
      if (i < step.board) board.appendChild(cardNode(hand.board[i], x, cy - 62, 48, 66));
      else board.appendChild(sv("rect", { class: "slot", x: x, y: cy - 62, width: 48, height: 66, rx: 4,
        fill: "none", stroke: "rgba(255,255,255,0.25)", "stroke-dasharray": "4 3" }));
    }
    svg.appendChild(board);
    // The pots, and everything in the middle counting the bets not yet gathered.
    const total = step.pots.reduce((sum, pot) => sum + pot.amount, 0) + step.bets.reduce((a, b) => a + b, 0);
    const potText = step.pots.map((pot, i) => (i === 0 ? "pot " : "side pot ") + plain(pot.amount)).join("   \u00b7   ");
    svg.appendChild(sv("text", { class: "pots", x: cx, y: cy + 34, "text-anchor": "middle", "font-size": 17,
      "font-weight": 700, fill: "#fff", text: potText }));
    svg.appendChild(sv("text", { id: "viewer-pot-total", "data-total": total, x: cx, y: cy + 56,
      "text-anchor": "middle", "font-size": 13, fill: "#cfe9d9", text: total ? `total in the middle: ${plain(total)}` : "" }));
    const count = hand.seats.length;
    const cards = step.cards || hand.cards;
    hand.seats.forEach((seat, i) => {
      const angle = Math.PI / 2 + (2 * Math.PI * i) / count;
      const sx = cx + 380 * Math.cos(angle);
      const sy = cy + 215 * Math.sin(angle);
      const status = step.status[i];
      const isWinner = (step.win || []).includes(i);
      const isActor = step.actor === i;
      const group = sv("g", { class: "seat seat-" + status + (isWinner ? " winner" : ""), "data-seat": i,
        opacity: status === "folded" || status === "out" ? 0.5 : 1 });
      group.appendChild(sv("rect", { x: sx - 82, y: sy - 48, width: 164, height: 108, rx: 10,
        fill: isWinner ? "#fff4d6" : "#ffffff", stroke: isActor ? "#f59f00" : isWinner ? "#e67700" : "#8a94a3",
        "stroke-width": isActor || isWinner ? 3 : 1 }));
      group.appendChild(sv("text", { x: sx, y: sy - 32, "text-anchor": "middle", "font-size": 13,
        "font-weight": 700, fill: "#1d2430", text: clip(seat.name, 22) }, sv("title", { text: seat.name })));
      const state = status === "folded" ? " \u00b7 folded" : status === "allin" ? " \u00b7 all-in"
        : status === "out" ? " \u00b7 sitting out" : "";
      group.appendChild(sv("text", { class: "stack", x: sx, y: sy - 16, "text-anchor": "middle", "font-size": 12,
        fill: "#5d6776", text: `stack ${plain(step.stacks[i])}${state}` }));
      const held = cards[i] || [];
      const fresh = step.draw && step.actor === i ? step.draw.drawn : [];
      const width = held.length > 2 ? 28 : 34;
      const height = held.length > 2 ? 40 : 44;
      held.forEach((card, k) => {
        const x = sx - (held.length * (width + 3)) / 2 + k * (width + 3);
        group.appendChild(cardNode(card, x, sy - 8, width, height, { fresh: fresh.includes(card) }));
      });
      const note = step.notes[i];
      if (note) {
        // Inside the seat's box, under its cards: ten seats leave no room around them.
        group.appendChild(sv("text", { class: "note", x: sx, y: sy + 52, "text-anchor": "middle", "font-size": 11.5,
          "font-weight": 600, fill: isWinner ? "#b35c00" : "#1d2430", text: clip(note, 28) }, sv("title", { text: note })));
      }
      svg.appendChild(group);
      // The bet in front of the seat, between it and the middle.
      if (step.bets[i]) {
        const bx = cx + (sx - cx) * 0.58;
        const by = cy + (sy - cy) * 0.58;
        svg.appendChild(sv("circle", { cx: bx - 18, cy: by, r: 8, fill: "#f2c94c", stroke: "#9c6d00" }));
        svg.appendChild(sv("text", { class: "bet", x: bx - 6, y: by + 5, "font-size": 14, "font-weight": 700,
          fill: "#fff", text: plain(step.bets[i]) }));
      }
      if (hand.button === i) {
        // Beside the seat, along the table's edge, clear of the bet.
        const dx = cx + (sx - cx) * 0.6 - 70 * Math.sin(angle);
        const dy = cy + (sy - cy) * 0.6 + 36 * Math.cos(angle);
        svg.appendChild(sv("circle", { cx: dx, cy: dy, r: 11, fill: "#fff", stroke: "#1d2430" }));
        svg.appendChild(sv("text", { x: dx, y: dy + 4, "text-anchor": "middle", "font-size": 12,
          "font-weight": 700, text: "D" }));
      }
    });
    return svg;
  }

  function clip(text, size) {
    return text.length > size ? text.slice(0, size - 1) + "\u2026" : text;
  }

  // -- the page ----------------------------------------------------------------------

  function route() {
    const match = /^#hand=(.+)$/.exec(window.location.hash);
    if (match) openHand(decodeURIComponent(match[1]));
  }

  const main = document.getElementById("report");
  drawSummary();
  drawLeaderboard(main);
  drawCrosstable(main);
  drawCharts(main);
  drawLuck(main);
  drawPlaces(main);
  drawFaults(main);
  drawLatency(main);
  drawHandList(main);
  drawViewer(main);
  for (const link of document.querySelectorAll("nav.toc a")) {
    if (!document.getElementById(link.getAttribute("data-section"))) link.remove();
  }
  window.addEventListener("hashchange", route);
  if (/^#hand=/.test(window.location.hash)) route();
  else if (DATA.open) openHand(DATA.open);
  document.body.setAttribute("data-ready", "1");
})();
