// The lobby: start a table against bots (and invited friends), take an open seat at a listed
// table or watch one, or watch four bots.
"use strict";

const RULES = [
  // [field, kind, choices]: RuleConfig's variant switches (RULES.md V1-V9), labelled from the
  // string tables (rule_FIELD, choice_VALUE)
  ["match", "select", ["target", "hands"]],
  ["hands", "select", [5, 9, 11]],
  ["doubling", "check", true],
  ["projects", "check", true],
  ["sun_double", "check", false],
  ["tie_rule", "select", ["rounding", "last_digit"]],
  ["win_above", "check", false],
  ["four_aces_hokum", "select", ["four_hundred", "hundred"]],
  ["baloot_kept", "check", false],
  ["deal_rotation", "select", ["left", "right"]],
];

function ruleInputs(box) {
  for (const [field, kind, choices] of RULES) {
    const label = el("span", { "data-t": "rule_" + field }, tr("rule_" + field));
    if (kind === "check") {
      box.append(el("label", { class: "inline" }, el("input", { type: "checkbox", "data-rule": field, checked: choices }), label));
    } else {
      const s = el("select", { "data-rule": field });
      for (const c of choices) s.append(el("option", typeof c === "number" ? { value: c } : { value: c, "data-t": "choice_" + c }, typeof c === "number" ? c : tr("choice_" + c)));
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
// The labels made here (agents, seats) follow the language switch.
// The offered agents weakest first (docs/RESULTS.md, the ladder); bundles given to the server after them.
const STRENGTH = ["random", "heuristic", "champion", "search", "netsearch"];
function byStrength(agents) {
  const rank = (a) => (STRENGTH.includes(a) ? STRENGTH.indexOf(a) : STRENGTH.length);
  return [...agents].sort((a, b) => rank(a) - rank(b));
}
function agentLabel(a) {
  const desc = T().ui["desc_" + a];
  return desc ? `${agentName(a)}: ${desc}` : agentName(a);
}

function render() {
  for (const o of document.querySelectorAll("option[data-agent]")) o.textContent = agentLabel(o.value);
  for (const o of document.querySelectorAll("option[data-invite]")) o.textContent = tr("inviteFriend");
  for (const e of document.querySelectorAll("[data-seat-label]")) {
    const seat = Number(e.dataset.seatLabel);
    e.textContent = tr("seatTeam", seat, seat % 2);
  }
  showYourTables();
  showOpenTables();
}

// The tables this browser holds a seat at (common.js heldSeats), newest first: a way back to a
// seat after its tab was closed.
function showYourTables() {
  const held = heldSeats().filter((s) => s.kind === "t");
  const box = document.getElementById("your-tables");
  box.hidden = held.length === 0;
  document.getElementById("your-tables-list").replaceChildren(
    ...held.map((s) => {
      const names = Array.isArray(s.names) ? s.names.filter((n) => n).join(" \u00b7 ") : "";
      const score = Array.isArray(s.score) ? ` ${s.score[0]}\u2013${s.score[1]}` : "";
      const what = s.over ? ` (${tr("finishedTable")})` : score;
      return el("li", {}, el("a", { href: seatUrl(s), class: "your-table", "data-room": s.room }, tr("tableOf", s.room.slice(0, 6))),
        ` ${names}${what}`);
    })
  );
}

// The listed tables still in play (/api/tables), fetched every few seconds: an open seat is
// taken under the name in the form below (no invitation needed), and any of them may be watched.
let openTables = [];
async function fetchOpenTables() {
  try {
    openTables = (await api("GET", "/api/tables")).tables;
  } catch (e) {
    return; // the list waits for the next try
  }
  showOpenTables();
}
function showOpenTables() {
  const box = document.getElementById("open-tables");
  box.hidden = openTables.length === 0;
  document.getElementById("open-tables-list").replaceChildren(...openTables.map(openTableItem));
}
function openTableItem(t) {
  const seats = t.names.map((name, seat) => {
    if (!t.open_seats.includes(seat)) return el("span", { class: "seated" }, playerName(name, t.kinds[seat] === "bot"));
    return el("button", { type: "button", class: "sit", "data-seat": seat, onclick: () => sitAt(t.room, seat) },
      `${tr("takeSeat")}: ${tr("seatTeam", seat, seat % 2)}`);
  });
  const joined = seats.flatMap((s, i) => (i ? [" \u00b7 ", s] : [s]));
  const score = t.started ? ` ${t.score[0]}\u2013${t.score[1]}` : "";
  const watching = t.spectators ? ` (${tr("spectators", t.spectators)})` : "";
  return el("li", { class: "open-table", "data-room": t.room }, ...joined, score,
    ` \u00b7 ${tr("tempo_" + t.tempo.name)} `, el("a", { href: `/spectate/${t.room}`, class: "spectate" }, tr("spectate")), watching);
}
async function sitAt(room, seat) {
  const name = document.querySelector("#play-form [name=name]").value.trim() || "Guest";
  try {
    const r = await api("POST", `/api/rooms/${room}/sit`, { seat, name });
    location.href = r.url;
  } catch (e) {
    showError(e); // taken meanwhile, say: the list is fetched again
    fetchOpenTables();
  }
}

async function main() {
  const info = await api("GET", "/api/agents");
  const agentOptions = () => byStrength(info.agents).map((a) => el("option", { value: a, selected: a === info.default, "data-agent": true }, a));
  for (const sel of document.querySelectorAll(".agent-or-invite")) {
    sel.append(...agentOptions(), el("option", { value: "invite", "data-invite": true }));
  }
  const mySeat = document.getElementById("my-seat");
  for (let seat = 0; seat < 4; seat++) mySeat.append(el("option", { value: seat, "data-seat-label": seat }));
  const ws = document.getElementById("watch-seats");
  for (let seat = 0; seat < 4; seat++) {
    const s = el("select", { "data-seat": seat }, ...agentOptions());
    ws.append(el("label", {}, el("span", { "data-seat-label": seat }), s));
  }
  ruleInputs(document.getElementById("rules"));
  render();
  fetchOpenTables();
  setInterval(fetchOpenTables, 5000);

  document.getElementById("play-form").onsubmit = async (ev) => {
    ev.preventDefault();
    const f = ev.target;
    const start = document.getElementById("start");
    if (start.disabled) return; // a second click makes no second room
    start.disabled = true;
    const mine = Number(f.seat.value);
    const seats = ["", "", "", ""];
    seats[mine] = "me";
    for (const sel of document.querySelectorAll(".agent-or-invite")) seats[(mine + Number(sel.dataset.rel)) % 4] = sel.value;
    try {
      const r = await api("POST", "/api/rooms", {
        seats, name: f.name.value, tempo: f.tempo.value, bot_delay: Number(f.bot_delay.value),
        rules: readRules(document.getElementById("rules")), listed: f.listed.checked,
      });
      if (r.invites) {
        // one private link per invited seat (the partner's first), each with its copy or share button
        const box = document.getElementById("invite");
        box.hidden = false;
        const links = r.invites.map((inv) => {
          const link = location.origin + inv.url;
          const rel = (inv.seat - mine + 4) % 4;
          const copy = el("button", { type: "button", class: "copy-invite", "data-t": "copy" }, tr("copy"));
          copy.onclick = () => copyLink(link, copy, null, true);
          return el("li", { class: "invite-link", "data-seat": inv.seat },
            el("strong", { "data-t": ["", "rightSeat", "partner", "leftSeat"][rel] }, tr(["", "rightSeat", "partner", "leftSeat"][rel])),
            " ", el("code", { class: "link" }, link), " ", copy);
        });
        box.replaceChildren(el("p", {}, el("span", { "data-t": "sendLink" }, tr("sendLink"))), el("ul", { class: "invite-links" }, ...links),
          el("p", {}, el("a", { href: r.url, id: "go", "data-t": "goSeat" }, tr("goSeat"))));
      } else {
        location.href = r.url;
      }
    } catch (e) {
      start.disabled = false; // refused: the form may be corrected and sent again
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
window.render = render;
main().catch(showError);
