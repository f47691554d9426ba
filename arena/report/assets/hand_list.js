// The list of embedded hands.

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
  // The site's viewer holds a match's first hands and is no file: it says so, and its
  // own address is the link to a hand.
  const how = DATA.on_site
    ? el("p", { class: "note", text: DATA.hands.length < DATA.hands_total
      ? `This page holds the first ${plain(DATA.hands.length)} of the match's ${plain(DATA.hands_total)} hands.`
      : `This page holds the match's ${plain(DATA.hands.length)} hands.` })
    : el("p", { class: "note" },
      `This page holds ${DATA.hands.length} of the run's ${plain(DATA.hands_total)} hands ` +
      "(every hand with a fault up to half of them, the biggest pots, and an even sample). " +
      "To see any other hand, write a report that holds it: ", el("code", { text: DATA.open_other }));
  const link = DATA.on_site ? window.location.pathname + "#hand=MATCH/N" : "report.html#hand=MATCH/N";
  const keys = el("p", { class: "note" }, "Open a hand, then step with ", el("kbd", { text: "\u2190" }), " ",
    el("kbd", { text: "\u2192" }), " (", el("kbd", { text: "Home" }), " / ", el("kbd", { text: "End" }),
    " for the first and last step). A link to a hand is ", el("code", { text: link }), ".");
  main.appendChild(section("hands", "Hands", how, keys, filters, el("div", { class: "hand-list" }, table)));
  relist();
}
