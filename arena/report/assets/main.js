// The page: every part drawn in order, then a link to a hand opens it.

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
