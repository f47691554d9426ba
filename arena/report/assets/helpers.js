// The report's shared part: the embedded data, the colours and suits, and the small
// helpers every drawing uses (elements, SVG, numbers, sections, links to hands, the score
// that ranks, the chart's note).

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

// The estimate of the score that ranks (raw or luck-adjusted) of a row or a cell.
function scored(item) {
  return DATA.score === "adjusted" && item.adjusted ? item.adjusted : item.estimate || item;
}

function rateText(e) {
  const half = e.half === null ? "\u00b1?" : "\u00b1" + plain(e.half);
  return signed(e.mean) + " " + half;
}

// The sentence that explains the dashed (duplicate-adjusted) line is drawn by the
// charts it explains, not under the title.
function isChartNote(note) {
  return /^The dashed line/.test(note);
}

const handsById = new Map(DATA.hands.map((hand) => [hand.id, hand]));
