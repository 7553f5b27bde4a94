// The score sheet: a hand's summary in, its score by R7 out (the server scores it with
// score_hand); running totals, the match's end, who deals next; edit, delete, undo.
"use strict";

const SHEET = location.pathname.split("/")[2] || "";
let SHEET_DATA = null;
let editing = null; // the row id being edited

const TOTAL = { hokum: 162, sun: 130 };

// Projects are typed as players call them: 20 (sira), 50, 100, 400, or by name in either
// language; the server values each kind by the contract (R6.1). Any other number is taken as
// game points, as the sheet stores them.
const CALLED = { 20: "sira", 50: "fifty", 100: "hundred", 400: "four_hundred" };
function projectKind(token) {
  const t = token.toLowerCase().replace(/[ _]/g, "");
  if (CALLED[t]) return CALLED[t];
  for (const lang of Object.values(I18N)) {
    for (const [kind, name] of Object.entries(lang.projects)) {
      if (name.toLowerCase().replace(/[ _]/g, "") === t || kind.replace(/_/g, "") === t) return kind;
    }
  }
  return Number(token);
}
function values(text) {
  return asciiDigits(text).split(/[,\u060c]+/).map((x) => x.trim()).filter((x) => x).map(projectKind);
}
// A stored row's game points as the players called them (a kind's call number), for editing.
function called(points, contract) {
  const column = contract === "hokum" ? 0 : 1;
  const kinds = (SHEET_DATA && SHEET_DATA.project_values) || {};
  const byKind = Object.fromEntries(Object.entries(CALLED).map(([n, k]) => [k, n]));
  const kind = Object.keys(kinds).find((k) => kinds[k][column] === points);
  return kind ? byKind[kind] : String(points);
}

function readEntry(f) {
  const contract = f.contract.value || null;
  if (!contract) return { contract: null };
  const raw0 = Number(f.raw0.value);
  return {
    contract,
    caller: Number(f.caller.value),
    level: Number(f.level.value),
    raw: [raw0, TOTAL[contract] - raw0],
    projects: [values(f.proj0.value), values(f.proj1.value)],
    baloot: f.baloot.value === "" ? [0, 0] : f.baloot.value === "0" ? [2, 0] : [0, 2],
    kaboot: f.kaboot.value === "" ? null : Number(f.kaboot.value),
  };
}
function fillEntry(f, e) {
  f.contract.value = e.contract || "";
  if (!e.contract) return syncRaw();
  f.caller.value = String(e.caller);
  f.level.value = String(e.level);
  f.raw0.value = e.raw[0];
  f.proj0.value = e.projects[0].map((v) => called(v, e.contract)).join(",");
  f.proj1.value = e.projects[1].map((v) => called(v, e.contract)).join(",");
  f.baloot.value = e.baloot[0] ? "0" : e.baloot[1] ? "1" : "";
  f.kaboot.value = e.kaboot === null ? "" : String(e.kaboot);
  syncRaw();
}
// The fields a contract needs; a thrown-in hand (R3.5) has none of them, so they are disabled
// (and so not validated: a raw-points value left from a hand being typed cannot block it).
const CONTRACT_FIELDS = ["caller", "level", "raw0", "proj0", "proj1", "baloot", "kaboot"];
function syncRaw() {
  const f = document.getElementById("entry");
  const total = TOTAL[f.contract.value] || 0;
  for (const name of CONTRACT_FIELDS) f[name].disabled = !f.contract.value;
  f.raw0.max = total;
  if (f.contract.value && Number(f.raw0.value) > total) f.raw0.value = total; // hokum 162 -> sun 130
  f.raw1.value = f.contract.value ? total - Number(f.raw0.value) : 0;
  // the levels the sheet's rules allow for this contract (R4.1, R4.3, V1): up to gahwa in
  // hokum, a Sun hand doubled once only where Sun doubling is on, none without doubling
  const rules = (SHEET_DATA && SHEET_DATA.rules) || {};
  const doubling = rules.doubling !== false;
  const top = f.contract.value === "hokum" ? (doubling ? 5 : 1) : doubling && rules.sun_double ? 2 : 1;
  for (const o of f.level.options) o.disabled = Number(o.value) > top;
  if (Number(f.level.value) > top) f.level.value = String(top);
}

function describe(e) {
  if (!e.contract) return tr("thrown");
  const parts = [contractLabel(e.contract, null).trim()];
  if (e.level > 1) parts.push(T().levels[e.level]);
  if (e.kaboot !== null) parts.push(tr("kaboot"));
  return parts.join(" \u00b7 ");
}

function render() {
  for (const o of document.querySelectorAll("[data-contract]")) o.textContent = T().contract[o.dataset.contract];
  for (const o of document.querySelectorAll("[data-contract-word]")) o.textContent = tr(o.dataset.contractWord);
  document.getElementById("entry-title").textContent = editing === null ? tr("addHand") : tr("editRow", editingIndex() + 1);
  document.getElementById("save-row").textContent = tr(editing === null ? "add" : "save");
  const d = SHEET_DATA;
  if (!d) return;
  // a finished match takes no new hand (a row may still be edited, or undone)
  document.getElementById("save-row").disabled = editing === null && !!d.result;
  syncRaw();
  const teams = d.teams;
  document.getElementById("title").textContent = `${teams[0]} \u2013 ${teams[1]}`;
  for (const t of [0, 1]) for (const x of document.querySelectorAll(".t" + t)) x.textContent = teams[t];
  document.getElementById("link").textContent = location.href;
  const status = document.getElementById("status");
  status.replaceChildren();
  if (d.result) {
    status.append(el("span", { class: "winner", id: "winner" }, `${d.result.winner === null ? tr("draw") : tr("wins", teams[d.result.winner])} ${d.result.score[0]} \u2013 ${d.result.score[1]}`));
  } else {
    status.append(el("span", { id: "totals" }, `${teams[0]} ${d.totals[0]} \u2013 ${d.totals[1]} ${teams[1]}`),
      el("span", { class: "muted" }, ` \u00b7 ${tr("nextDealer", d.next_dealer, teams[d.next_dealer % 2])} \u00b7 ` +
        (d.rules.match === "hands" ? tr("handsOf", d.hands_scored, d.rules.hands) : tr("choice_target"))));
  }
  const table = document.getElementById("rows");
  const heads = ["#", tr("colDealer"), tr("colHand"), tr("colCaller"), tr("colRaw"), tr("colProjects"), tr("colBaloot")];
  table.replaceChildren(el("tr", {}, ...[...heads, teams[0], teams[1], `\u03a3 ${teams[0]}`, `\u03a3 ${teams[1]}`, ""].map((h) => el("th", {}, h))));
  d.rows.forEach((r, i) => {
    const e = r.entry;
    const row = el("tr", { class: r.after_end ? "after-end" : "", "data-row": r.id },
      el("td", {}, i + 1), el("td", {}, r.dealer ?? ""), el("td", {}, describe(e)),
      el("td", {}, e.contract ? teams[e.caller] : ""), el("td", {}, e.contract ? `${e.raw[0]}\u2013${e.raw[1]}` : ""),
      el("td", {}, e.contract ? `${e.projects[0].join("+") || 0} / ${e.projects[1].join("+") || 0}` : ""),
      el("td", {}, e.baloot && (e.baloot[0] || e.baloot[1]) ? teams[e.baloot[0] ? 0 : 1] : ""),
      el("td", { class: "s0" }, r.score ? r.score[0] : ""), el("td", { class: "s1" }, r.score ? r.score[1] : ""),
      el("td", { class: "total" }, r.totals ? r.totals[0] : ""), el("td", { class: "total" }, r.totals ? r.totals[1] : ""),
      el("td", {}, r.qaid ? el("button", { class: "why", onclick: () => showQaid(r) }, tr("why")) : null, " ",
        el("button", { class: "edit", onclick: () => startEdit(r) }, tr("edit")), " ",
        el("button", { class: "delete", onclick: () => confirm(tr("confirmDelete", i + 1)) && change("DELETE", `/api/sheets/${SHEET}/rows/${r.id}`) }, tr("delete"))));
    table.append(row);
  });
  renderQaid();
}

let SHOWN = null; // the row whose qaid is shown
function showQaid(r) {
  SHOWN = r.id;
  render();
}
function renderQaid() {
  const box = document.getElementById("qaid");
  const r = SHEET_DATA && SHEET_DATA.rows.find((x) => x.id === SHOWN);
  box.hidden = !(r && r.qaid);
  box.replaceChildren();
  if (box.hidden) return;
  box.append(el("h3", {}, `${SHEET_DATA.rows.indexOf(r) + 1}. ${describe(r.entry)}`), qaidBox(r.qaid, SHEET_DATA.teams));
}
function editingIndex() {
  return SHEET_DATA ? SHEET_DATA.rows.findIndex((r) => r.id === editing) : -1;
}
function startEdit(r) {
  editing = r.id;
  fillEntry(document.getElementById("entry"), r.entry);
  document.getElementById("cancel-edit").hidden = false;
  render();
}
function stopEdit() {
  editing = null;
  document.getElementById("cancel-edit").hidden = true;
  render();
}

async function change(method, url, body) {
  try {
    SHEET_DATA = await api(method, url, body);
    showError(null);
    render();
    return true;
  } catch (e) {
    showError(e);
    return false;
  }
}

async function main() {
  render();
  if (!SHEET) {
    const form = document.getElementById("new-sheet");
    form.hidden = false;
    form.onsubmit = async (ev) => {
      ev.preventDefault();
      const f = ev.target;
      try {
        const d = await api("POST", "/api/sheets", {
          teams: [f.team0.value, f.team1.value], first_dealer: Number(f.dealer.value),
          rules: { match: f.match.value, hands: Number(f.hands.value), doubling: f.doubling.checked, projects: f.projects.checked,
            sun_double: f.sun_double.checked, baloot_kept: f.baloot_kept.checked, tie_rule: f.tie_rule.value,
            deal_rotation: f.deal_rotation.value },
        });
        location.href = `/sheet/${d.id}`;
      } catch (e) {
        showError(e);
      }
    };
    return;
  }
  document.getElementById("sheet").hidden = false;
  const f = document.getElementById("entry");
  f.raw0.oninput = syncRaw;
  f.contract.onchange = syncRaw;
  syncRaw();
  f.onsubmit = async (ev) => {
    ev.preventDefault();
    const entry = readEntry(f);
    const ok = editing === null
      ? await change("POST", `/api/sheets/${SHEET}/rows`, entry)
      : await change("PUT", `/api/sheets/${SHEET}/rows/${editing}`, entry);
    if (ok) stopEdit();
  };
  document.getElementById("cancel-edit").onclick = stopEdit;
  document.getElementById("undo").onclick = () => change("POST", `/api/sheets/${SHEET}/undo`);
  await change("GET", `/api/sheets/${SHEET}`);
}
window.render = render;
main().catch(showError);
