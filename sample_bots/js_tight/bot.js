#!/usr/bin/env node
// A starter bot in JavaScript (Node.js, standard library only): it plays tight.
//
// Before the flop it raises pairs and two big cards, calls cheap bets with suited or
// connected cards and folds the rest. After the flop it bets when it has at least a pair
// that uses one of its own cards, and checks or folds otherwise.
//
// Protocol: one JSON object per line on stdin; reply on stdout with one JSON line to
// every message that has a "seq" (hello, act, draw), echoing that seq.
"use strict";

const readline = require("node:readline");

const NAME = "js tight";
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

function send(message) {
  // Writes to a pipe are synchronous on Linux and kept in order elsewhere: no flush needed.
  process.stdout.write(JSON.stringify(message) + "\n");
}

function rankValue(card) {
  return RANKS.indexOf(card.rank) + 2;
}

function preflopStrength(hole) {
  const [a, b] = hole.map(rankValue).sort((x, y) => y - x);
  if (a === b) return a >= 7 ? "raise" : "call";
  if (b >= 10) return "raise"; // two big cards
  if (hole[0].suit === hole[1].suit || a - b === 1) return "call";
  return "fold";
}

function pairsWithOwnCard(hole, board) {
  const boardRanks = board.map((card) => card.rank);
  const holeRanks = hole.map((card) => card.rank);
  return holeRanks.some(
    (rank, i) => boardRanks.includes(rank) || holeRanks.indexOf(rank) !== i,
  );
}

function chooseAction(request) {
  const legal = request.legal_actions;
  const reply = (action, amount) => {
    const message = { type: "action", seq: request.seq, action };
    if (amount !== undefined) message.amount = amount;
    return message;
  };
  const raiseTo = (target) =>
    Math.min(Math.max(target, request.min_raise_to), request.max_raise_to);
  const cheap = request.to_call <= request.big_blind * 2;

  let plan;
  if (request.community_cards.length === 0 && request.hole_cards.length === 2) {
    plan = preflopStrength(request.hole_cards);
  } else {
    plan = pairsWithOwnCard(request.hole_cards, request.community_cards) ? "raise" : "fold";
  }
  if (plan === "raise" && legal.includes("RAISE")) {
    return reply("RAISE", raiseTo(request.current_bet + request.pot_total));
  }
  if (legal.includes("CHECK")) return reply("CHECK");
  if ((plan !== "fold" || cheap) && legal.includes("CALL")) return reply("CALL");
  return reply("FOLD");
}

function cardsToDiscard(request) {
  // Five-card draw: throw away the cards that pair nothing, lowest first.
  const cards = request.hole_cards;
  const ranks = cards.map((card) => card.rank);
  let lonely = cards
    .filter((card) => ranks.filter((rank) => rank === card.rank).length === 1)
    .sort((x, y) => rankValue(x) - rankValue(y));
  if (lonely.length === cards.length) lonely = lonely.slice(0, -1); // keep the high card
  return lonely.slice(0, request.max_discards ?? 5);
}

const input = readline.createInterface({ input: process.stdin, terminal: false });

input.on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return; // not JSON: ignore it
  }
  switch (message.type) {
    case "hello":
      send({ type: "ready", seq: message.seq, name: NAME, protocol_version: 1 });
      break;
    case "act":
      send(chooseAction(message));
      break;
    case "draw":
      send({ type: "discard", seq: message.seq, cards: cardsToDiscard(message) });
      break;
    case "error":
      process.stderr.write(`arena rejected my reply: ${message.message}\n`);
      break;
    case "match_end":
      input.close();
      break;
    default:
      break; // hand_start, hand_end and unknown types need no answer
  }
});

input.on("close", () => process.exit(0));
