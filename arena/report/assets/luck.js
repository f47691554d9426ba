// Luck per match.

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
  main.appendChild(section("luck", "Luck per match", el("div", { class: "scroll", tabindex: "0" }, table),
    el("p", { class: "note", text: "Each seat's result in each match: raw (the chips won), adjusted " +
      "(the luck-adjusted result) and the luck between them (raw \u2212 adjusted), in chips and in " +
      `milli-big-blinds per hand. Estimator: ${DATA.estimator}.` })));
}
