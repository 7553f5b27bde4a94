// The lobby: start a table against bots (and invited friends), or watch four bots.
"use strict";

const RULES = [
  // [field, label, kind, choices]: RuleConfig's variant switches (RULES.md V1-V9)
  ["match", "Match (V4)", "select", ["target", "hands"]],
  ["hands", "Hands in hands mode", "select", [5, 9, 11]],
  ["doubling", "Doubling (V3)", "check", true],
  ["projects", "Projects and baloot (V2)", "check", true],
  ["sun_double", "Sun may be doubled (V1)", "check", false],
  ["tie_rule", "Tie rule (V5)", "select", ["rounding", "last_digit"]],
  ["win_above", "Must pass 152 (V6)", "check", false],
  ["four_aces_hokum", "Four aces in hokum (V7)", "select", ["four_hundred", "hundred"]],
  ["baloot_kept", "Baloot always kept (V8)", "check", false],
  ["deal_rotation", "Deal passes (V9)", "select", ["left", "right"]],
];

function ruleInputs(box) {
  for (const [field, label, kind, choices] of RULES) {
    if (kind === "check") {
      box.append(el("label", { class: "inline" }, el("input", { type: "checkbox", "data-rule": field, checked: choices }), label));
    } else {
      const s = el("select", { "data-rule": field });
      for (const c of choices) s.append(el("option", { value: c }, c));
      box.append(el("label", {}, label, s));
    }
  }
}
function readRules(box) {
  const rules = {};
  for (const input of box.querySelectorAll("[data-rule]")) {
    const f = input.dataset.rule;
    rules[f] = input.type === "checkbox" ? input.checked : f === "hands" ? Number(input.value) : input.value;
  }
  return rules;
}
function showError(e) {
  const box = document.getElementById("error");
  box.hidden = !e;
  box.textContent = e ? String(e.message || e) : "";
}

async function main() {
  const info = await api("GET", "/api/agents");
  for (const sel of document.querySelectorAll(".agent-or-invite")) {
    for (const a of info.agents) sel.append(el("option", { value: a, selected: a === info.default }, a));
    sel.append(el("option", { value: "invite" }, "invite a friend"));
  }
  const ws = document.getElementById("watch-seats");
  for (let seat = 0; seat < 4; seat++) {
    const s = el("select", { "data-seat": seat });
    for (const a of info.agents) s.append(el("option", { value: a, selected: a === info.default }, a));
    ws.append(el("label", {}, `Seat ${seat} (team ${seat % 2})`, s));
  }
  ruleInputs(document.getElementById("rules"));

  document.getElementById("play-form").onsubmit = async (ev) => {
    ev.preventDefault();
    const f = ev.target;
    const mine = Number(f.seat.value);
    const seats = ["", "", "", ""];
    seats[mine] = "me";
    for (const sel of document.querySelectorAll(".agent-or-invite")) seats[(mine + Number(sel.dataset.rel)) % 4] = sel.value;
    try {
      const r = await api("POST", "/api/rooms", {
        seats, name: f.name.value, tempo: f.tempo.value, bot_delay: Number(f.bot_delay.value),
        rules: readRules(document.getElementById("rules")),
      });
      if (r.invite_url) {
        const box = document.getElementById("invite");
        box.hidden = false;
        const link = location.origin + r.invite_url;
        box.replaceChildren(el("p", {}, "Send this private link to the players you invite: ", el("code", { class: "link" }, link)),
          el("p", {}, el("a", { href: r.url, id: "go" }, "Go to your seat")));
      } else {
        location.href = r.url;
      }
    } catch (e) {
      showError(e);
    }
  };
  document.getElementById("watch-form").onsubmit = async (ev) => {
    ev.preventDefault();
    const seats = [...document.querySelectorAll("#watch-seats select")].map((s) => s.value);
    try {
      const r = await api("POST", "/api/rooms", { seats, bot_delay: Number(ev.target.bot_delay.value) });
      location.href = r.url;
    } catch (e) {
      showError(e);
    }
  };
}
main().catch(showError);
