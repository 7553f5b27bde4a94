// Replays: step through a stored hand from one seat's view or all four. The frames come from
// the server, which replays the hand through the engine.
"use strict";

const PARAMS = new URLSearchParams(location.hash.slice(1));
const ROOM = PARAMS.get("room");
const TOKEN = PARAMS.get("token") || "";
let HAND = null, FRAMES = [], AT = 0, LIST = null;

function resultText(r) {
  if (!r) return "";
  if (r.contract === null) return tr("thrown");
  const trump = r.trump === null ? null : "SHDC"[r.trump];
  return `${contractLabel(r.contract, trump)} \u00b7 ${tr("seatN", r.caller)} \u00b7 ${r.callers_won ? tr("won") : tr("lost")} \u00b7 ${r.score[0]}\u2013${r.score[1]}`;
}

async function loadList() {
  LIST = ROOM
    ? await api("GET", `/api/rooms/${ROOM}/hands?token=${encodeURIComponent(TOKEN)}`)
    : await api("GET", "/api/replays");
  renderList();
}
function renderList() {
  if (!LIST) return;
  if (!ROOM) {
    // from the lobby: the replays of the tables this browser holds a seat at, then the hands an
    // evaluation stored (for developers; the panel shows only when there are some)
    const mine = heldSeats().filter((s) => s.kind === "t");
    document.getElementById("my-replays").hidden = mine.length === 0;
    document.getElementById("my-replays-list").replaceChildren(...mine.map((s) => el("li", {},
      el("a", { href: `/replay#room=${s.room}&token=${encodeURIComponent(s.token)}`, class: "my-replay" }, tr("tableOf", s.room.slice(0, 6))))));
    document.getElementById("stored").hidden = LIST.hands.length === 0 && mine.length > 0;
    if (!LIST.hands.length) {
      document.getElementById("list-note").textContent = tr("noReplays");
      document.getElementById("hands").replaceChildren();
      return;
    }
  }
  document.getElementById("list-note").textContent = tr(ROOM ? "yourHands" : "evalHands");
  const table = document.getElementById("hands");
  table.replaceChildren(el("tr", {}, ...["colId", "colHand", "colResult", "colD"].map((h) => el("th", {}, tr(h))), el("th", {})));
  for (const h of LIST.hands) {
    const m = h.meta || {};
    const what = h.source === "eval"
      ? `${m.deal_set} #${m.index} \u00b7 ${tr("tableN", m.table + 1)} \u00b7 ${tr("teamOf", m.teams ? agentName(m.teams[0]) : "")}`
      : `#${h.number}`;
    table.append(el("tr", {}, el("td", {}, h.id), el("td", {}, what), el("td", {}, resultText(h.result)),
      el("td", {}, m.d ?? ""), el("td", {}, el("button", { class: "open", onclick: () => openHand(h.id) }, tr("open")))));
  }
}

async function openHand(id, view) {
  view = view || document.getElementById("view").value;
  HAND = await api("GET", `/api/hands/${id}?view=${view}&token=${encodeURIComponent(TOKEN)}`);
  FRAMES = HAND.frames;
  AT = Math.min(AT, FRAMES.length - 1);
  document.getElementById("viewer").hidden = false;
  document.getElementById("step").max = FRAMES.length - 1;
  render();
}

function nameOf(seat) {
  // a live hand's players by name (bots by their agent's), else the seat; a name that another
  // seat shares (four bots of one kind) says its seat too, as the live table's watch mode does
  const m = (HAND && HAND.meta) || {};
  if (!m.names) return tr("seatN", seat);
  const name = playerName(m.names[seat], m.seats && m.seats[seat] && m.seats[seat].kind === "bot");
  return m.names.filter((n) => n === m.names[seat]).length > 1 ? `${name} \u00b7 ${seat}` : name;
}

function render() {
  renderList();
  if (!HAND) return;
  document.getElementById("hand-title").textContent = `${tr("handN", HAND.id)}: ${resultText(HAND.result)}`;
  const f = FRAMES[AT];
  document.getElementById("step").value = AT;
  document.getElementById("step-label").textContent = `${AT} / ${FRAMES.length - 1}`;
  const s = f.step;
  let info = s
    ? `${nameOf(s.seat)}: ${actionLabel(s.action)}` +
      (s.by ? ` (${tr("by_" + s.by)}${s.think !== null && s.think !== undefined ? `, ${s.think}${tr("sec")}` : ""})` : "")
    : tr("deal");
  if (f.contract) info += ` \u00b7 ${contractLabel(f.contract, f.trump)}` + (f.level > 1 ? ` \u00b7 ${T().levels[f.level]}` : "");
  info += ` \u00b7 ${tr("raw")} ${f.raw[0]}\u2013${f.raw[1]}`;
  if (f.result) info += ` \u00b7 ${resultText(f.result)}`;
  document.getElementById("frame-info").textContent = info;
  const q = document.getElementById("qaid");
  q.replaceChildren();
  if (f.result && f.result.qaid) q.append(qaidBox(f.result.qaid, [teamName(0), teamName(1)]));
  const me = f.seat === null ? 0 : f.seat;
  const rel = (seat) => (seat - me + 4) % 4;
  for (let seat = 0; seat < 4; seat++) {
    const box = document.getElementById(`seat-${rel(seat)}`);
    box.replaceChildren(el("div", { class: "plate" }, el("b", {}, nameOf(seat)), f.dealer === seat ? el("span", { class: "chip" }, tr("dealerChip")) : null));
    box.classList.toggle("to-act", f.to_act === seat && !f.gathering);
    box.classList.remove("takes");
    const cards = f.hands ? f.hands[seat] : seat === f.seat ? f.hand : null;
    if (cards) {
      const row = el("div", { class: "mini-hand" });
      for (const n of cards) row.append(cardEl(n, { small: true }));
      box.append(row);
    }
  }
  const taker = drawTrick(f, rel);
  if (taker !== null) document.getElementById(`seat-${rel(taker)}`).classList.add("takes");
  const middle = document.getElementById("middle");
  middle.replaceChildren();
  if (f.phase === "bidding") middle.append(el("div", { class: "turned" }, el("small", {}, tr("turned")), cardEl(f.turned)));
}

function go(i) {
  AT = Math.max(0, Math.min(FRAMES.length - 1, i));
  render();
}
document.getElementById("first").onclick = () => go(0);
document.getElementById("prev").onclick = () => go(AT - 1);
document.getElementById("next").onclick = () => go(AT + 1);
document.getElementById("last").onclick = () => go(FRAMES.length - 1);
document.getElementById("step").oninput = (e) => go(Number(e.target.value));
// The arrow keys step too (Home and End jump), except while typing in a field; in Arabic the
// page runs right to left, so "forward" is the left arrow there.
document.addEventListener("keydown", (e) => {
  if (!FRAMES.length || ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName) && document.activeElement.id !== "step") return;
  const forward = T().dir === "rtl" ? "ArrowLeft" : "ArrowRight";
  const back = T().dir === "rtl" ? "ArrowRight" : "ArrowLeft";
  const to = { [forward]: AT + 1, [back]: AT - 1, Home: 0, End: FRAMES.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  go(to);
});
document.getElementById("view").onchange = (e) => HAND && openHand(HAND.id, e.target.value).catch(showError);
window.render = render;
window.addEventListener("hashchange", () => location.reload()); // another table's replays
loadList().catch(showError);
