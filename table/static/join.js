// An invitation link (/join/ROOM#INVITE): the seat it is for, who invites, the rules and the
// clock (from the server), then the person takes that seat and goes to it.
"use strict";
const JOIN_ROOM = location.pathname.split("/")[2];
const INVITE = decodeURIComponent(location.hash.slice(1));
let OFFER = null;

function ruleValue(field, value) {
  if (typeof value === "boolean") return value ? "\u2713" : "\u2717";
  return typeof value === "number" ? String(value) : tr("choice_" + value);
}
function render() {
  const box = document.getElementById("offer");
  if (!OFFER) return box.replaceChildren();
  const seat = (OFFER.seat - (OFFER.host_seat ?? 0) + 4) % 4; // 1 their right, 2 their partner, 3 their left
  const rules = el("ul", { class: "offer-rules" },
    ...Object.entries(OFFER.rules).map(([f, v]) => el("li", { "data-rule": f }, `${tr("rule_" + f)}: ${ruleValue(f, v)}`)));
  box.replaceChildren(
    el("p", { id: "offer-seat" }, tr("invitedTo", OFFER.host, tr("invitedSeat" + (seat || 2)))),
    el("p", { id: "offer-clock" }, tr("invitedClock", OFFER.tempo.card, OFFER.tempo.call)),
    el("p", {}, tr("invitedRules")), rules);
  localizeDigits(box);
}
window.render = render;

async function main() {
  try {
    OFFER = await api("POST", `/api/rooms/${JOIN_ROOM}/invitation`, { invite: INVITE });
    render();
  } catch (e) {
    showError(e);
  }
}
document.getElementById("join-form").onsubmit = async (ev) => {
  ev.preventDefault();
  try {
    const r = await api("POST", `/api/rooms/${JOIN_ROOM}/join`, { invite: INVITE, name: ev.target.name.value });
    location.href = r.url;
  } catch (e) {
    showError(e);
  }
};
main();
