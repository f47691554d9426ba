// The hand viewer: a hand's table, step by step, as SVG.

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
    root.appendChild(el("p", { class: "missing", text: `Hand ${id} is not in this ${DATA.on_site ? "page" : "report"}.` }));
    if (!DATA.on_site) {
      root.appendChild(el("p", { class: "note" }, "Write a report that holds it: ",
        el("code", { text: DATA.open_other.replace("MATCH/N", id) })));
    }
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
