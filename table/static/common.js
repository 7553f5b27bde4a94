// Shared by every page: English and Arabic names (cards, contracts, calls, projects), the
// language switch, drawing a card, and JSON requests. Plain JS, no build step, no CDN.
"use strict";

const SUIT_SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const RED = { H: true, D: true };

const I18N = {
  en: {
    dir: "ltr",
    suits: { S: "Spades", H: "Hearts", D: "Diamonds", C: "Clubs" },
    ranks: { "7": "7", "8": "8", "9": "9", T: "10", J: "J", Q: "Q", K: "K", A: "A" },
    rankNames: { "7": "seven", "8": "eight", "9": "nine", T: "ten", J: "jack", Q: "queen", K: "king", A: "ace" },
    contract: { hokum: "Hokum", sun: "Sun" },
    calls: { pass: "Pass", sun: "Sun", hokum: "Hokum", double: "Double", three: "Three", four: "Four", gahwa: "Gahwa" },
    levels: ["", "", "Double \u00d72", "Three \u00d73", "Four \u00d74", "Gahwa"],
    projects: { sira: "Sira", fifty: "Fifty", hundred: "Hundred", four_hundred: "Four hundred" },
    status: { bot: "bot", human: "", autopilot: "autopilot", hold: "connection lost", away: "bot (away)", left: "left: bot" },
    seats: ["You", "Right", "Partner", "Left"],
    us: "Us", them: "Them", turn: "Your turn", waitingFor: "Waiting for", toAct: "to play",
    takeOver: "Take over", leave: "Leave the table", autopilot: "The table is playing for you after three timeouts.",
    reconnecting: "Connection lost: reconnecting\u2026", handOver: "Hand over", matchOver: "Match over",
    won: "won", lost: "lost", thrown: "Thrown in: everybody passed", kaboot: "Kaboot", baloot: "Baloot",
    contractBy: "by", level: "Level", trick: "Trick", lastTrick: "Last trick", calls2: "Calls", turned: "Turned card",
    waitingSeats: "Waiting for the invited players\u2026", invite: "Invitation link", score: "Score", target: "to 152",
    hands: "hands", next: "Next hand", dealer: "dealer", raw: "card points", tricks: "tricks", gained: "scored",
    team: "Team", round: "round", takes: "takes the trick",
    lang: "\u0639\u0631\u0628\u064a",
  },
  ar: {
    dir: "rtl",
    suits: { S: "\u0634\u0631\u064a\u0627", H: "\u0647\u0627\u0635", D: "\u062f\u064a\u0645\u0646", C: "\u0633\u0628\u064a\u062a" },
    ranks: { "7": "\u0667", "8": "\u0668", "9": "\u0669", T: "\u0661\u0660", J: "\u0648\u0644\u062f", Q: "\u0628\u0646\u062a", K: "\u0634\u0627\u064a\u0628", A: "\u0625\u0643\u0629" },
    rankNames: { "7": "\u0633\u0628\u0639\u0629", "8": "\u062b\u0645\u0627\u0646\u064a\u0629", "9": "\u062a\u0633\u0639\u0629", T: "\u0639\u0634\u0631\u0629", J: "\u0648\u0644\u062f", Q: "\u0628\u0646\u062a", K: "\u0634\u0627\u064a\u0628", A: "\u0625\u0643\u0629" },
    contract: { hokum: "\u062d\u0643\u0645", sun: "\u0635\u0646" },
    calls: { pass: "\u0628\u0633", sun: "\u0635\u0646", hokum: "\u062d\u0643\u0645", double: "\u062f\u0628\u0644", three: "\u062b\u0631\u064a", four: "\u0641\u0648\u0631", gahwa: "\u0642\u0647\u0648\u0629" },
    levels: ["", "", "\u062f\u0628\u0644 \u00d72", "\u062b\u0631\u064a \u00d73", "\u0641\u0648\u0631 \u00d74", "\u0642\u0647\u0648\u0629"],
    projects: { sira: "\u0633\u0631\u0627", fifty: "\u062e\u0645\u0633\u064a\u0646", hundred: "\u0645\u064a\u0629", four_hundred: "\u0623\u0631\u0628\u0639\u0645\u064a\u0629" },
    status: { bot: "\u0622\u0644\u064a", human: "", autopilot: "\u0644\u0639\u0628 \u062a\u0644\u0642\u0627\u0626\u064a", hold: "\u0627\u0646\u0642\u0637\u0639 \u0627\u0644\u0627\u062a\u0635\u0627\u0644", away: "\u0622\u0644\u064a (\u063a\u0627\u0626\u0628)", left: "\u0627\u0646\u0633\u062d\u0628: \u0622\u0644\u064a" },
    seats: ["\u0623\u0646\u062a", "\u064a\u0645\u064a\u0646", "\u0627\u0644\u0634\u0631\u064a\u0643", "\u064a\u0633\u0627\u0631"],
    us: "\u0644\u0646\u0627", them: "\u0644\u0647\u0645", turn: "\u062f\u0648\u0631\u0643", waitingFor: "\u0628\u0627\u0646\u062a\u0638\u0627\u0631", toAct: "",
    takeOver: "\u0627\u0633\u062a\u0644\u0645", leave: "\u0627\u0646\u0633\u062d\u0628", autopilot: "\u0627\u0644\u0637\u0627\u0648\u0644\u0629 \u062a\u0644\u0639\u0628 \u0639\u0646\u0643 \u0628\u0639\u062f \u062b\u0644\u0627\u062b \u0645\u0647\u0644\u0627\u062a.",
    reconnecting: "\u0627\u0646\u0642\u0637\u0639 \u0627\u0644\u0627\u062a\u0635\u0627\u0644: \u062c\u0627\u0631\u064d \u0627\u0644\u0625\u0639\u0627\u062f\u0629\u2026", handOver: "\u0627\u0646\u062a\u0647\u062a \u0627\u0644\u062c\u0648\u0644\u0629", matchOver: "\u0627\u0646\u062a\u0647\u062a \u0627\u0644\u0635\u0643\u0629",
    won: "\u0641\u0627\u0632", lost: "\u062e\u0633\u0631", thrown: "\u0645\u0631\u0648\u0633\u0629: \u0627\u0644\u0643\u0644 \u0628\u0633", kaboot: "\u0643\u0628\u0648\u062a", baloot: "\u0628\u0644\u0648\u062a",
    contractBy: "\u0645\u0646", level: "\u0627\u0644\u0645\u0633\u062a\u0648\u0649", trick: "\u0627\u0644\u0623\u0643\u0644\u0629", lastTrick: "\u0627\u0644\u0623\u0643\u0644\u0629 \u0627\u0644\u0633\u0627\u0628\u0642\u0629", calls2: "\u0627\u0644\u0634\u0631\u0627\u0621", turned: "\u0627\u0644\u0648\u0631\u0642\u0629 \u0627\u0644\u0645\u0643\u0634\u0648\u0641\u0629",
    waitingSeats: "\u0628\u0627\u0646\u062a\u0638\u0627\u0631 \u0627\u0644\u0644\u0627\u0639\u0628\u064a\u0646 \u0627\u0644\u0645\u062f\u0639\u0648\u064a\u0646\u2026", invite: "\u0631\u0627\u0628\u0637 \u0627\u0644\u062f\u0639\u0648\u0629", score: "\u0627\u0644\u0646\u062a\u064a\u062c\u0629", target: "\u0625\u0644\u0649 \u0661\u0665\u0662",
    hands: "\u062c\u0648\u0644\u0627\u062a", next: "\u0627\u0644\u062c\u0648\u0644\u0629 \u0627\u0644\u062a\u0627\u0644\u064a\u0629", dealer: "\u0627\u0644\u0645\u0648\u0632\u0639", raw: "\u0627\u0644\u0623\u0628\u0646\u0627\u0637", tricks: "\u0623\u0643\u0644\u0627\u062a", gained: "\u0633\u062c\u0651\u0644",
    team: "\u0641\u0631\u064a\u0642", round: "\u0627\u0644\u062c\u0648\u0644\u0629", takes: "\u064a\u0623\u0643\u0644",
    lang: "English",
  },
};

function lang() {
  return localStorage.getItem("baloot-lang") === "ar" ? "ar" : "en";
}
function T() {
  return I18N[lang()];
}
function toggleLang() {
  localStorage.setItem("baloot-lang", lang() === "ar" ? "en" : "ar");
  applyDir();
  if (window.render) window.render();
}
function applyDir() {
  document.documentElement.lang = lang();
  document.documentElement.dir = T().dir;
  const b = document.getElementById("lang");
  if (b) b.textContent = T().lang;
}

function cardLabel(name) {
  // "TH" -> "10 of Hearts" / "عشرة هاص"
  const t = T();
  const r = name[0], s = name[1];
  return lang() === "ar" ? `${t.rankNames[r]} ${t.suits[s]}` : `${t.ranks[r]} ${SUIT_SYMBOL[s]} (${t.rankNames[r]} of ${t.suits[s]})`;
}

function cardEl(name, opts = {}) {
  const el = document.createElement(opts.button ? "button" : "div");
  if (!name) {
    el.className = "card back";
    return el;
  }
  const r = name[0], s = name[1];
  el.className = "card" + (RED[s] ? " red" : "") + (opts.small ? " small" : "");
  el.dataset.card = name;
  el.title = cardLabel(name);
  el.setAttribute("aria-label", cardLabel(name));
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.textContent = T().ranks[r];
  const suit = document.createElement("span");
  suit.className = "suit";
  suit.textContent = SUIT_SYMBOL[s];
  el.append(rank, suit);
  return el;
}

// The cards on the table of a state message (the live table's or a replay frame): the trick
// being played, or, while a finished trick lies there (`gathering`), its four cards with the
// winner's marked. `rel` maps a seat to its place (0 bottom, 1 right, 2 top, 3 left).
function drawTrick(m, rel) {
  for (let r = 0; r < 4; r++) document.getElementById(`slot-${r}`).replaceChildren();
  const done = m.gathering && m.last_trick ? m.last_trick : null;
  for (const [seat, name] of done ? done.cards : m.trick || []) {
    const card = cardEl(name);
    if (done && seat === done.winner) card.classList.add("winner");
    document.getElementById(`slot-${rel(seat)}`).append(card);
  }
  return done ? done.winner : null;
}

const ACTION_NAMES = ["pass", "hokum", "hokum", "hokum", "hokum", "sun", "double", "three", "four", "gahwa"];
function actionLabel(id) {
  // R9 ids: 32 pass, 33-36 hokum S H D C, 37 sun, 38-41 double three four gahwa
  const t = T();
  if (id < 32) return cardLabel("789TJQKA"[id & 7] + "SHDC"[id >> 3]);
  const kind = ACTION_NAMES[id - 32];
  if (kind === "hokum") {
    const s = "SHDC"[id - 33];
    return `${t.calls.hokum} ${SUIT_SYMBOL[s]} ${t.suits[s]}`;
  }
  return t.calls[kind];
}

function contractLabel(contract, trump) {
  if (!contract) return "";
  const t = T();
  return contract === "hokum" && trump ? `${t.contract.hokum} ${SUIT_SYMBOL[trump]} ${t.suits[trump]}` : t.contract[contract];
}

async function api(method, url, body) {
  const r = await fetch(url, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error ? (typeof data.error === "string" ? data.error : JSON.stringify(data.error)) : r.statusText);
  return data;
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c.nodeType ? c : String(c));
  return e;
}

document.addEventListener("DOMContentLoaded", applyDir);
