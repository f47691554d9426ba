// The faults of each bot.

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
  main.appendChild(section("faults", "Faults", el("div", { class: "scroll", tabindex: "0" }, body)));
}
