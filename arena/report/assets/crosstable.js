// The crosstable: each pair's result, as a heat map.

function heat(mean, biggest) {
  if (mean === null) return "transparent";
  const strength = Math.min(1, Math.abs(mean) / (biggest || 1));
  // At most half strength: the cell's text (the page's ink) keeps a contrast of 6.5:1 or
  // more on the reddest cell (WCAG AA asks 4.5:1; at 0.72 it was 4.4:1).
  const alpha = 0.12 + 0.38 * strength;
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
    el("div", { class: "scroll", tabindex: "0" }, el("table", { class: "heat" }, el("thead", {}, head), body)), legend));
}
