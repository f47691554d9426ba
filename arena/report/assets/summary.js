// The summary under the title: the run's facts and its notes.

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
