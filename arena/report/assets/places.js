// Finishing places (freezeouts and sit-and-go tournaments).

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
  main.appendChild(section("places", "Finishing places", el("div", { class: "scroll", tabindex: "0" }, table)));
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
