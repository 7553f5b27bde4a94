// The leaderboard: the people who played at this table, scored in duplicate against a bot in
// their seat, and the bots' ladder (a league report). Every figure comes from the server
// (table.leaderboard); the page only draws it, and asks again every 30 seconds.
"use strict";

let BOARD = null;

function signed(x, digits = 2) {
  return (x >= 0 ? "+" : "\u2212") + Math.abs(x).toFixed(digits);
}

function renderPeople() {
  const b = BOARD;
  document.getElementById("people-note").textContent = tr("peopleNote", agentName(b.reference)) + (b.more ? ` ${tr("moreToScore")}` : "");
  const table = document.getElementById("people");
  table.replaceChildren(el("tr", {}, ...["colRank", "colName", "colHands", "colVsRef", "colMatches", "colAgainst"]
    .map((h) => el("th", {}, tr(h, agentName(b.reference))))));
  if (!b.people.length) {
    table.append(el("tr", {}, el("td", { colspan: 6, class: "muted" }, tr("nobodyYet"))));
    return;
  }
  b.people.forEach((p, i) => {
    const d = p.mean_d === null ? "" : signed(p.mean_d) + (p.ci95 ? ` [${signed(p.ci95[0])}, ${signed(p.ci95[1])}]` : "");
    const against = Object.entries(p.against).map(([a, n]) => `${agentName(a)} ${n}`).join(", ");
    table.append(el("tr", { class: "person" }, el("td", {}, i + 1), el("td", { class: "name" }, playerName(p.name, false)),
      el("td", {}, p.hands), el("td", { class: "vs-ref" }, d), el("td", {}, tr("wonOf", p.won, p.matches)), el("td", {}, against)));
  });
}

function renderAgents() {
  const a = BOARD.agents;
  const table = document.getElementById("agents"), matrix = document.getElementById("matrix");
  if (!a) {
    document.getElementById("agents-note").textContent = tr("noLeague");
    table.replaceChildren();
    matrix.replaceChildren();
    return;
  }
  // the deal set's name is an identifier (python -m eval --deal-set NAME): kept as written
  const [before, after] = tr("agentsNote", "\u0000", a.deals).split("\u0000");
  document.getElementById("agents-note").replaceChildren(before, el("code", {}, a.deal_set), after);
  table.replaceChildren(el("tr", {}, ...["colRank", "colName", "colElo", "colMs", "colParams"].map((h) => el("th", {}, tr(h)))));
  a.ranking.forEach((r, i) => {
    table.append(el("tr", { class: "agent" }, el("td", {}, i + 1), el("td", { class: "name" }, agentName(r.label)),
      el("td", {}, Math.round(r.elo)), el("td", {}, r.median_ms === null ? "" : r.median_ms.toFixed(r.median_ms < 1 ? 3 : 1)),
      el("td", {}, r.parameters === null ? "" : r.parameters.toLocaleString("en"))));
  });
  const names = a.labels.map(agentName);
  matrix.replaceChildren(el("tr", {}, el("th", {}), ...names.map((n) => el("th", {}, n))));
  a.mean.forEach((row, i) => {
    matrix.append(el("tr", {}, el("th", {}, names[i]), ...row.map((x, j) => {
      const cell = el("td", { class: i === j ? "self" : x > 0 ? "plus" : x < 0 ? "minus" : "" }, i === j ? "\u2013" : signed(x));
      if (i !== j && a.ci95[i][j]) cell.title = `[${signed(a.ci95[i][j][0])}, ${signed(a.ci95[i][j][1])}]`;
      return cell;
    })));
  });
}

function render() {
  if (!BOARD) return;
  renderPeople();
  renderAgents();
}
window.render = render;

async function load() {
  try {
    BOARD = await api("GET", "/api/leaderboard");
    showError(null);
    render();
  } catch (e) {
    showError(e);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  load();
  setInterval(load, 30000);
});
