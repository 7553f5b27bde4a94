// The live table: one seat's view (or four bots, in watch mode; or, for a spectator of a table
// listed in the lobby, what the whole table sees), sent by the server over a WebSocket. The server is authoritative: the page shows only the legal moves it was sent and
// sends back an action id (R9); anything else is refused there.
"use strict";

const PARTS = location.pathname.split("/");
const SPECTATE = PARTS[1] === "spectate"; // a listed table: no token, no hand of anyone
const WATCH = PARTS[1] === "watch" || SPECTATE;
const ROOM = PARTS[2];
// The seat's token comes in the link's #fragment once; it is kept in this browser's storage
// (common.js: holdSeat, so a closed tab or another tab finds the seat again and the lobby lists
// it) and taken out of the address bar, so a copied address hands no seat over.
const TOKEN = (() => {
  const given = decodeURIComponent(location.hash.slice(1));
  if (given) {
    holdSeat({ room: ROOM, kind: PARTS[1], token: given });
    history.replaceState(null, "", location.pathname);
  }
  return heldToken(ROOM, PARTS[1]);
})();
const RANKS = "789TJQKA", SUITS = "SHDC";
let S = null; // the latest state message
let receivedAt = 0;
let ws = null;
let retries = 0;
let fatal = false;

function cardId(name) {
  return 8 * SUITS.indexOf(name[1]) + RANKS.indexOf(name[0]);
}
function me() {
  return S && S.seat !== null && S.seat !== undefined ? S.seat : 0;
}
function rel(seat) {
  return (seat - me() + 4) % 4; // 0 me (bottom), 1 next = right (R1.1), 2 partner (top), 3 previous = left
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const query = SPECTATE ? "spectate=true" : `token=${encodeURIComponent(TOKEN)}`;
  ws = new WebSocket(`${proto}://${location.host}/ws/${ROOM}?${query}`);
  ws.onopen = () => {
    retries = 0;
    setBanner(null);
  };
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "state") {
      S = m;
      receivedAt = performance.now();
      showError(null);
      if (!SPECTATE) holdSeat({ room: ROOM, kind: PARTS[1], token: TOKEN, names: S.names, seat: S.seat, hand: S.hand_number,
        score: S.match ? S.match.score : null, over: !!S.match_result });
      render();
    } else if (m.type === "error") {
      showError(refusal(m.code, m.message));
      if (m.code === "bad_token" || m.code === "no_table" || m.code === "not_listed") {
        fatal = true;
        dropSeat(ROOM, PARTS[1]); // a seat the server does not know is not listed again
      }
    }
  };
  ws.onclose = () => {
    if (fatal) return;
    setBanner(tr("reconnecting"), "warn");
    setTimeout(connect, Math.min(500 * ++retries, 4000));
  };
}

function send(obj) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(obj));
}
function act(id) {
  send({ type: "act", action: id, ply: S.ply });
}

// Closing or reloading the page: say so, so that the seat is held 10 s rather than 60 (R10.3).
window.addEventListener("pagehide", () => send({ type: "bye" }));

// The seat link: this seat's address with its token, to open the seat on another device.
function showSeatLink() {
  const url = seatUrl({ room: ROOM, kind: PARTS[1], token: TOKEN });
  const box = document.getElementById("seat-link-box");
  const field = el("input", { readonly: true, value: url, id: "seat-link-url", "aria-label": tr("seatLink") });
  const copy = el("button", { type: "button", id: "seat-link-copy" }, tr("copy"));
  copy.onclick = () => copyLink(url, copy, field);
  box.replaceChildren(el("p", {}, tr("seatLinkHelp")), field, copy);
  box.hidden = !box.hidden;
  if (!box.hidden) field.select();
}

function setBanner(text, kind) {
  const b = document.getElementById("banner");
  b.hidden = !text;
  b.className = "banner " + (kind || "");
  b.replaceChildren();
  if (text) b.append(text);
  return b;
}
function seatName(seat) {
  const name = playerName(S.names[seat], S.kinds && S.kinds[seat] === "bot");
  if (WATCH) return `${name} \u00b7 ${seat}`;
  return rel(seat) === 0 ? name : `${name} (${T().seats[rel(seat)]})`;
}

function render() {
  if (!S) return;
  if (!WATCH && ws && ws.readyState === WebSocket.OPEN) setBanner(S.tabs > 1 ? tr("otherTabs", S.tabs) : null, "warn");
  const t = T();
  document.title = tr(WATCH ? "watchingTitle" : "tableTitle");
  const mine = me();
  const myTeam = WATCH ? 0 : mine % 2;
  const info = document.getElementById("info");
  info.textContent = `#${S.hand_number} \u00b7 ${tr("tempo_" + S.tempo.name)} (${S.tempo.card}${tr("sec")} / ${S.tempo.call}${tr("sec")})`;
  const leave = document.getElementById("leave");
  leave.hidden = WATCH || S.status[mine] === "left";
  leave.textContent = tr("leave");
  leave.onclick = () => {
    if (confirm(tr("leave") + "?")) send({ type: "leave" });
  };
  const link = document.getElementById("seat-link");
  link.hidden = WATCH;
  link.textContent = tr("seatLink");
  link.title = tr("seatLinkHelp");
  link.onclick = () => showSeatLink();
  const rep = document.getElementById("replays");
  rep.hidden = SPECTATE; // a table's replays are for those who hold a link to it
  rep.href = `/replay#room=${ROOM}&token=${encodeURIComponent(TOKEN)}`;

  // Scores: the match, and this hand's tricks and card points.
  const score = S.match ? S.match.score : [0, 0];
  const us = [tr("us"), tr("them")];
  const scores = document.getElementById("scores");
  scores.replaceChildren(
    ...[myTeam, 1 - myTeam].map((team, i) =>
      el("div", { class: "score " + (i ? "them" : "us") },
        el("b", {}, WATCH ? teamName(team) : us[i]),
        el("span", { class: "big", "data-team": team }, score[team]),
        S.tricks_won ? el("small", {}, `${S.tricks_won[team]} ${S.tricks_won[team] === 1 ? tr("trickOne") : tr("tricks")} \u00b7 ${S.raw[team]} ${tr("raw")}`) : null)
    ),
    el("div", { class: "score-note" }, S.match && S.match.mode === "hands" ? `${S.match.hands_left} ${tr("hands")}` : tr("target"))
  );

  // The contract and the doubling level.
  const c = document.getElementById("contract");
  c.replaceChildren();
  if (S.contract) {
    c.append(el("span", { class: "badge" }, contractLabel(S.contract, S.trump)), ` ${tr("contractBy")} ${seatName(S.caller)}`);
    if (S.level > 1) c.append(" ", el("span", { class: "badge level", id: "level" }, t.levels[S.level]));
  } else if (S.phase === "bidding") {
    c.append(`${tr("calls2")} \u00b7 ${tr("round")} ${S.bid_round}`);
  }

  // Seats: name, status, dealer, clock, projects (once public), watch-mode hands.
  for (let seat = 0; seat < 4; seat++) {
    const box = document.getElementById(`seat-${rel(seat)}`);
    box.replaceChildren();
    box.classList.toggle("to-act", S.to_act === seat && !S.gathering);
    box.classList.remove("takes");
    const title = el("div", { class: "plate" }, el("b", {}, seatName(seat)));
    if (S.dealer === seat) title.append(el("span", { class: "chip", title: tr("dealer") }, tr("dealerChip")));
    const st = t.status[S.status[seat]];
    if (st) title.append(el("span", { class: "status " + S.status[seat] }, st));
    const botPlays = ["bot", "autopilot", "away", "left"].includes(S.status[seat]);
    if (botPlays && S.to_act === seat && !S.gathering && ["bidding", "doubling", "play"].includes(S.phase)) {
      title.append(el("span", { class: "thinking", id: `thinking-${seat}` }, tr("thinking"))); // a bot is deciding
    }
    box.append(title);
    if (S.clock && S.clock.seat === seat && S.clock.left !== null && S.phase !== "done") {
      box.append(el("div", { class: "clock" }, el("div", { class: "bar", id: `clock-bar-${seat}` }), el("span", { id: `clock-${seat}` })));
    }
    const projects = (S.projects || [])[seat] || [];
    for (const p of projects) {
      // a project as it is shown to the table (R6.2): its name and its cards
      const row = el("div", { class: "projects project", "data-kind": p.kind }, el("span", {}, t.projects[p.kind]));
      for (const name of p.cards) row.append(cardEl(name, { small: true }));
      box.append(row);
    }
    if (S.baloot_seat === seat) box.append(el("div", { class: "projects" }, tr("baloot")));
    const lastCall = lastCallOf(seat);
    if (lastCall !== null) box.append(el("div", { class: "said" }, actionLabel(lastCall)));
    if (!S.hands && (rel(seat) !== 0 || SPECTATE) && S.hand_sizes) {
      // an opponent's or the partner's cards (a spectator's: every seat's), face down: how many they hold
      const backs = el("div", { class: "backs", "data-count": S.hand_sizes[seat] });
      for (let i = 0; i < S.hand_sizes[seat]; i++) backs.append(cardEl(null, { small: true }));
      box.append(backs);
    }
    if (S.hands && rel(seat) !== 0) {
      const row = el("div", { class: "mini-hand" });
      for (const name of S.hands[seat]) row.append(cardEl(name, { small: true }));
      box.append(row);
    }
  }

  // The trick (a finished one with its winner while it lies there), or the turned card while bidding.
  const taker = drawTrick(S, rel);
  if (taker !== null) document.getElementById(`seat-${rel(taker)}`).classList.add("takes");
  const middle = document.getElementById("middle");
  middle.replaceChildren();
  if (S.phase === "bidding") middle.append(el("div", { class: "turned" }, el("small", {}, tr("turned")), cardEl(S.turned)));
  if (S.phase === "waiting") middle.append(el("p", {}, tr("waitingSeats")));

  // Calls I may make, and take over.
  const bar = document.getElementById("calls-bar");
  bar.replaceChildren();
  const myTurn = !WATCH && S.to_act === mine && S.legal && S.legal.length > 0;
  if (!WATCH && ["autopilot", "away"].includes(S.status[mine])) {
    bar.append(el("span", { class: "note" }, tr("autopilot")), " ",
      el("button", { class: "primary", id: "take-over", onclick: () => send({ type: "take_over" }) }, tr("takeOver")));
  }
  if (!WATCH && S.timeouts && S.timeouts[mine] > 0 && S.status[mine] === "human") {
    bar.append(el("span", { class: "note timeouts", id: "timeouts" }, tr("timedOut", S.timeouts[mine], 3)));
  }
  if (myTurn) {
    bar.append(el("span", { class: "your-turn" }, tr("turn")));
    for (const a of S.legal) {
      if (a.id >= 32) bar.append(el("button", { class: "call", "data-action": a.id, onclick: () => act(a.id) }, actionLabel(a.id)));
    }
  } else if (taker !== null) {
    bar.append(el("span", { class: "note", id: "taker" }, `${seatName(taker)} ${tr("takes")}`));
  } else if (S.to_act >= 0 && S.phase !== "done" && S.phase !== "waiting") {
    const doing = S.phase === "play" ? tr("toAct") : tr("toCall"); // a card, or a bid or double
    bar.append(el("span", { class: "note", id: "waiting" }, `${tr("waitingFor")} ${seatName(S.to_act)} ${doing}`));
  }

  // My hand (or seat 0's in watch mode): legal cards are buttons, the others are greyed.
  const hand = document.getElementById("hand");
  hand.replaceChildren();
  const legalCards = new Set((S.legal || []).filter((a) => a.id < 32).map((a) => a.id));
  const cards = WATCH ? (S.hands ? S.hands[0] : []) : S.hand || [];
  for (const name of cards) {
    const id = cardId(name);
    const playable = myTurn && legalCards.has(id);
    const b = cardEl(name, { button: true });
    b.disabled = !playable;
    if (WATCH || S.phase !== "play") b.classList.add("shown"); // readable while the calls are made
    if (playable) {
      b.classList.add("legal");
      b.onclick = () => act(id);
    }
    hand.append(b);
  }

  // The calls of this hand, the last trick, the last hand's result.
  document.getElementById("log-title").textContent = tr("calls2");
  const log = document.getElementById("log");
  // the bidding by round, then the doubling, each under its heading
  const entries = [];
  let section = null;
  const head = (key) => {
    if (section !== key) entries.push(el("li", { class: "log-head" }, tr(key)));
    section = key;
  };
  for (const [round, seat, a] of S.bids || []) {
    head(round === 2 ? "round2" : "round1");
    entries.push(el("li", {}, `${seatName(seat)}: ${actionLabel(a)}`));
  }
  for (const [seat, a] of S.doubling || []) {
    head("doublingHead");
    entries.push(el("li", {}, `${seatName(seat)}: ${actionLabel(a)}`));
  }
  log.replaceChildren(...entries);
  log.scrollTop = log.scrollHeight; // the newest call is always in view
  const lt = document.getElementById("last-trick");
  lt.replaceChildren();
  if (S.last_trick) {
    lt.append(el("h3", {}, `${tr("lastTrick")} \u2192 ${seatName(S.last_trick.winner)}`));
    const row = el("div", { class: "mini-hand last-trick-cards" });
    for (const [seat, name] of S.last_trick.cards) {
      // each card with the seat that played it
      const who = WATCH ? seatName(seat) : T().seats[rel(seat)]; // You, Right, Partner, Left
      row.append(el("figure", { class: "played-by", "data-seat": seat }, cardEl(name, { small: true }), el("figcaption", {}, who)));
    }
    lt.append(row);
  }
  renderResult(myTeam);
  renderHandEnd(myTeam);
  tickClock();
}

function lastCallOf(seat) {
  if (S.phase !== "bidding" && S.phase !== "doubling") return null;
  let last = null;
  for (const [, s, a] of S.bids || []) if (s === seat) last = a;
  for (const [s, a] of S.doubling || []) if (s === seat) last = a;
  return last;
}

function teamNames(myTeam) {
  // the two teams' labels, team 0 first
  if (WATCH) return [teamName(0), teamName(1)];
  return myTeam === 0 ? [tr("us"), tr("them")] : [tr("them"), tr("us")];
}

// The match's end: who won, the score, play again (the same table, new deals) or the lobby.
function renderMatchEnd(myTeam) {
  if (document.getElementById("match-end")) return;
  const m = S.match_result;
  const title = m.winner === null ? tr("matchDrawn")
    : WATCH ? tr("teamWon", teamName(m.winner)) : tr(m.winner === myTeam ? "matchWon" : "matchLost");
  const note = el("div", { class: "rematch-note" });
  const again = el("button", { class: "primary", id: "rematch" }, tr("rematch"));
  again.onclick = async () => {
    try {
      const r = await api("POST", `/api/rooms/${ROOM}/rematch`, { token: TOKEN });
      if (!r.invite_url) {
        location.href = r.url;
        return;
      }
      note.replaceChildren(el("p", {}, tr("sendLink"), " ", el("code", { class: "link" }, location.origin + r.invite_url)),
        el("a", { href: r.url, id: "go" }, tr("goSeat")));
    } catch (e) {
      showError(e.message);
    }
  };
  const score = WATCH ? `${m.score[0]} \u2013 ${m.score[1]}` : `${tr("us")} ${m.score[myTeam]} \u2013 ${m.score[1 - myTeam]} ${tr("them")}`;
  document.body.append(el("div", { class: "match-end", id: "match-end" }, el("h2", {}, title), el("p", { class: "big" }, score),
    el("p", {}, WATCH ? null : again, " ", el("a", { href: "/", id: "to-lobby" }, tr("toLobby"))), note));
}

// The hand-end sheet: when a hand ends, its result and the running list of hands (the score
// sheet of the match so far, the نشرة) over the table, until tapped or for a few seconds.
const HAND_END_SECONDS = 6;
let handEndShown = null; // how many hands the sheet has been shown for
let handEndTimer = null;
function renderHandEnd(myTeam) {
  const sheet = document.getElementById("hand-end");
  const n = (S.results || []).length;
  if (handEndShown === null) handEndShown = n; // a page opened mid-match shows no old hand
  if (!S.last_result) {
    sheet.hidden = true;
    return;
  }
  const fresh = n > 0 && n !== handEndShown; // a hand just ended: show the sheet
  if (!fresh && sheet.hidden) return;
  handEndShown = n; // (a sheet showing is drawn again: the language may have changed)
  const r = S.last_result;
  const summary = r.contract === null ? tr("thrown")
    : `${contractLabel(r.contract, r.trump === null ? null : SUITS[r.trump])} ${tr("contractBy")} ${seatName(r.caller)}` +
      ` · ${r.callers_won ? tr("won") : tr("lost")}` + (r.kaboot ? ` · ${tr("kaboot")}` : "");
  const names = [tr("us"), tr("them")];
  const rows = S.results.map((score, i) => el("tr", { class: "hand-row" }, el("td", {}, i + 1), el("td", {}, score[myTeam]), el("td", {}, score[1 - myTeam])));
  const total = [0, 1].map((k) => S.results.reduce((sum, score) => sum + score[k === 0 ? myTeam : 1 - myTeam], 0));
  sheet.replaceChildren(
    el("h3", {}, `${tr("handOver")} #${n}`),
    el("p", {}, summary),
    el("p", { class: "hand-end-score" }, `${names[0]} +${r.score[myTeam]} · ${names[1]} +${r.score[1 - myTeam]}`),
    el("table", { class: "sheet hands-list" }, el("tr", {}, el("th", {}, "#"), el("th", {}, names[0]), el("th", {}, names[1])), ...rows,
      el("tr", { class: "total" }, el("td", {}, tr("total")), el("td", {}, total[0]), el("td", {}, total[1]))),
    el("p", { class: "muted" }, tr("tapToClose")));
  if (!fresh) return;
  sheet.hidden = false;
  sheet.onclick = () => { sheet.hidden = true; };
  clearTimeout(handEndTimer);
  handEndTimer = setTimeout(() => { sheet.hidden = true; }, HAND_END_SECONDS * 1000);
}

function renderResult(myTeam) {
  const t = T();
  const box = document.getElementById("result");
  const r = S.last_result;
  box.hidden = !r && !S.match_result;
  box.replaceChildren();
  if (S.match_result) {
    const w = S.match_result.winner;
    box.append(el("h2", { id: "match-over" }, `${tr("matchOver")}: ${w === null ? "=" : w === myTeam ? tr("us") : tr("them")} ${S.match_result.score[myTeam]} \u2013 ${S.match_result.score[1 - myTeam]}`));
    renderMatchEnd(myTeam);
  }
  if (!r) return;
  box.append(el("h3", {}, `${tr("handOver")} #${S.results.length}`));
  if (r.contract === null) {
    box.append(el("p", {}, tr("thrown")));
    return;
  }
  const trump = r.trump === null ? null : SUITS[r.trump];
  box.append(el("p", {}, `${contractLabel(r.contract, trump)} ${tr("contractBy")} ${seatName(r.caller)}` +
    (r.level > 1 ? ` \u00b7 ${t.levels[r.level]}` : "") + ` \u00b7 ${r.callers_won ? tr("won") : tr("lost")}` + (r.kaboot ? ` \u00b7 ${tr("kaboot")}` : "")));
  box.append(el("p", { id: "hand-score" }, `${tr("us")} +${r.score[myTeam]} \u00b7 ${tr("them")} +${r.score[1 - myTeam]}`));
  if (r.qaid) box.append(qaidBox(r.qaid, teamNames(myTeam)));
}

function tickClock() {
  if (!S || !S.clock || S.clock.left === null) return;
  const left = Math.max(0, S.clock.left - (performance.now() - receivedAt) / 1000);
  const label = document.getElementById(`clock-${S.clock.seat}`);
  const bar = document.getElementById(`clock-bar-${S.clock.seat}`);
  if (label) label.textContent = `${Math.ceil(left)}${tr("sec")}`;
  if (bar) {
    bar.style.width = `${(100 * left) / S.clock.limit}%`;
    bar.classList.toggle("low", left < 10);
  }
}

window.render = render;
setInterval(tickClock, 250);
if (!TOKEN && !SPECTATE) {
  showError(tr("noToken"));
} else {
  connect();
}
