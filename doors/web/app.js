// The memory inspector: plain JavaScript on the server's /palace/api (no framework, no CDN).
"use strict";

const $ = (sel) => document.querySelector(sel);
const api = "/palace/api";
let user = new URLSearchParams(location.search).get("user") || "";

function token() { return sessionStorage.getItem("palace-token") || ""; }

// one call to the user's API; an error is thrown with the API's one-line detail (or the HTTP status)
async function call(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (token()) headers.Authorization = "Bearer " + token();
  let r;
  try {
    r = await fetch(api + "/users/" + encodeURIComponent(user) + path,
                    { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) { throw new Error(`cannot reach the palace server: ${e.message}`); }
  if (r.status === 401) { document.querySelector(".token").hidden = false; }
  const json = (r.headers.get("content-type") || "").startsWith("application/json");
  const data = json ? await r.json() : await r.text();
  if (!r.ok) throw new Error(json && data && data.detail ? String(data.detail) : `HTTP ${r.status} ${r.statusText}`);
  return data;
}

// the status line: always one line (an error too), never a blank page
function say(text, error) {
  const s = $("#status");
  s.textContent = String(text).replace(/\s+/g, " ").trim();
  s.className = error ? "error" : "";
}

// run an action, saying what it did or the error it met
async function act(what) {
  try { say(await what()); } catch (e) { say(e.message, true); }
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c ?? ""));
  return e;
}

let zone = "UTC";  // the server's PALACE_INSPECTOR_TIMEZONE (else PALACE_TIMEZONE), from /palace/api/health

// a time as the CLI shows it (doors/present.py when): "2026-12-04 21:39" in the user's zone
function when(ms) {
  if (ms === null || ms === undefined || ms === "") return "";
  const parts = Object.fromEntries(new Intl.DateTimeFormat("en-GB", { timeZone: zone, hourCycle: "h23",
    year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" })
    .formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

function whenIso(text) { return text ? when(Date.parse(text)) : ""; }

function bar(name, value, scale) {
  const pct = Math.max(0, Math.min(1, value / scale)) * 100;
  return [el("span", {}, name), el("div", { class: "bar", title: `${name} ${value}` },
          el("i", { class: name, style: `width:${pct.toFixed(1)}%` })), el("span", {}, value.toFixed(3))];
}

function scoreCell(r) {
  if (r.score === undefined) return el("td", { class: "when" }, "(no query)");
  return el("td", {}, el("div", { class: "score" }, "score " + r.score.toFixed(3)),
            el("div", { class: "bars" }, ...bar("relevance", r.relevance, 1), ...bar("decay", r.decay, 1),
               ...bar("weight", r.weight, 2), ...bar("boost", r.boost, 1.5)));
}

async function loadMemories() {
  const q = $("#query").value.trim();
  const rows = q ? await call("GET", "/memories/search?limit=20&q=" + encodeURIComponent(q))
                 : await call("GET", "/memories?status=" + $("#status-filter").value);
  const body = $("#memories tbody");
  body.replaceChildren(...rows.map((r) => el("tr", { "data-id": r.id },
    el("td", {}, r.chain ? el("span", { class: "chain chain-" + r.chain, title: r.chain === "now" ? "newest memory about this subject" : "a newer memory about this subject follows it" }, r.chain + " ") : "",
       el("span", { class: "text" }, r.text), " ",
       el("a", { href: "#", class: "detail-link", onclick: (ev) => { ev.preventDefault(); act(() => showDetail(r.id)); } }, "details"),
       el("a", { href: "#", class: "history-link", onclick: (ev) => { ev.preventDefault(); act(() => showHistory(ev.target, r.id)); } }, "history")),
    el("td", { class: "status-" + (r.status || "active") }, r.status || "active"),
    scoreCell(r), el("td", { class: "when" }, when(r.timestamp)), el("td", { class: "when" }, when(r.event_time)))));
  if (!rows.length) body.append(el("tr", {}, el("td", { colspan: "5" }, q ? "nothing recalled" : "no memories")));
  timeline(rows);
  return rows;
}

async function showHistory(link, id) {
  const events = await call("GET", "/memories/" + encodeURIComponent(id) + "/history");
  const list = el("ul", { class: "history" }, ...events.map((e) => el("li", {},
    `${whenIso(e.at)} ${e.event}` + (e.related_id ? ` ${e.event === "follows" ? (e.memory_id === id ? "memory" : "— followed by") : "with"} ${(e.event === "follows" && e.memory_id !== id ? e.memory_id : e.related_id).slice(0, 8)}` : "") + (e.decision ? ` (verifier: ${e.decision})` : "") + (e.reason ? `: ${e.reason}` : ""))));
  if (!events.length) list.append(el("li", {}, "no recorded changes"));
  link.replaceWith(list);
  return `history of ${id.slice(0, 8)}`;
}

// the CLI's words (doors/present.py): memory_lines' chain, and what pin, forget and restore print
const SAME_SUBJECT = "same subject: (oldest first; the newest holds now)";
function chainLine(o) {
  return `${o.relation.padEnd(7)} ${o.id.slice(0, 8)}  ${when(o.timestamp)}  ${o.status.padEnd(10)} ${o.text}`;
}
function count(n, one, many) { return `${n} ${n === 1 ? one : many}`; }
function forgotLine(gone, asked) {
  return `forgot ${gone.memories} of ${count(asked, "memory", "memories")} of ${user}, ${gone.derived} derived ` +
    `from the same messages, ${count(gone.short_term_entries, "short-term entry", "short-term entries")}`;
}

// the memory detail view: its fields, the memories about the same subject, and what can be done with it
async function showDetail(id) {
  const m = await call("GET", "/memories/" + encodeURIComponent(id));
  const d = $("#detail");
  d.dataset.id = m.id;
  $("#detail-id").textContent = m.id;
  const fields = [];
  for (const k of ["text", "detail", "status", "timestamp", "event_time", "last_accessed", "invalid_at",
                   "decay_weight", "ref_count", "superseded_by", "conflicts_with", "session_id", "origin"]) {
    let v = m[k];
    if (v === null || v === undefined || v === "" || (k === "detail" && v === m.text)) continue;
    if (["timestamp", "event_time", "last_accessed", "invalid_at"].includes(k)) v = `${when(v)} (${v})`;
    if (k === "decay_weight" && Number.isInteger(v)) v = v.toFixed(1);  // 1.0, as the CLI prints it
    fields.push(el("dt", {}, k), el("dd", { class: "field-" + k }, String(v)));
  }
  $("#detail-fields").replaceChildren(...fields);
  const chain = m.chain || [];
  $("#chain").replaceChildren(...(chain.length ? [el("div", { class: "chain-head" }, SAME_SUBJECT)] : []),
    ...chain.map((o) => el("div", { class: "chain-line", "data-id": o.id, "data-relation": o.relation },
      el("a", { href: "#", onclick: (ev) => { ev.preventDefault(); act(() => showDetail(o.id)); } }, chainLine(o)))));
  d.querySelector(".pin").textContent = m.decay_weight > 1 ? "Unpin" : "Pin";
  d.querySelector(".pin").dataset.pinned = m.decay_weight > 1 ? "1" : "";
  d.querySelector(".restore").hidden = m.status !== "superseded";
  $("#confirm-forget").hidden = true;
  d.hidden = false;
  d.scrollIntoView({ block: "nearest" });
  return `memory ${m.id.slice(0, 8)}` + (chain.length ? `: ${count(chain.length, "memory", "memories")} about the same subject` : "");
}

function shownId() { return $("#detail").dataset.id; }

async function pinShown() {
  const id = shownId(), pinned = $("#detail .pin").dataset.pinned === "1";
  const m = await call(pinned ? "DELETE" : "POST", "/memories/" + encodeURIComponent(id) + "/pin");
  await refresh();
  await showDetail(id);
  return `${pinned ? "unpinned" : "pinned"} ${m.id}: ${m.text}`;
}

async function restoreShown() {
  const id = shownId();
  const done = await call("POST", "/memories/" + encodeURIComponent(id) + "/restore");
  await refresh();
  await showDetail(id);
  return `restored ${done.id.slice(0, 8)} (was ${done.was}): ${done.text}`;
}

function askForget() {  // the confirmation step: nothing is forgotten until "Forget" is pressed here
  const text = $("#detail-fields .field-text");
  $("#confirm-forget .question").textContent =
    `Forget “${text ? text.textContent : shownId()}” and what was derived from the same messages? This cannot be undone.`;
  $("#confirm-forget").hidden = false;
  $("#confirm-forget .cancel").focus();
  return "confirm to forget, or cancel";
}

async function forgetShown() {
  const id = shownId();
  $("#confirm-forget").hidden = true;
  const gone = await call("DELETE", "/memories/" + encodeURIComponent(id));
  $("#detail").hidden = true;
  await refresh();
  return forgotLine(gone, 1);
}

function timeline(rows) {
  const t = $("#timeline");
  const times = rows.flatMap((r) => [r.timestamp, r.event_time]).filter((x) => x !== null && x !== undefined);
  t.replaceChildren(el("span", { class: "lab", style: "top:0" }, "recorded"),
                    el("span", { class: "lab", style: "top:24px" }, "event"));
  if (!times.length) return;
  const lo = Math.min(...times), hi = Math.max(...times), span = Math.max(1, hi - lo);
  const x = (ms) => `calc(70px + ${(((ms - lo) / span) * 100).toFixed(2)}% * 0.9)`;
  for (const r of rows) {
    t.append(el("i", { class: "dot rec", style: `left:${x(r.timestamp)}`, title: `${r.text} (recorded ${when(r.timestamp)})` }));
    if (r.event_time) t.append(el("i", { class: "dot evt", style: `left:${x(r.event_time)}`, title: `${r.text} (event ${when(r.event_time)})` }));
  }
}

async function decide(id, choice) {
  await act(async () => {
    const out = await call("POST", "/review", { [choice]: [id] });
    await refresh();
    return `${id.slice(0, 8)}: ${out[id]}`;
  });
}

async function loadDisputed() {
  const found = await call("GET", "/review");
  $("#disputed").replaceChildren(...found.map((d) => el("li", { "data-id": d.id },
    el("b", {}, d.text), " ", el("span", { class: "vs" }, d.conflicts_with_text ? `contradicts “${d.conflicts_with_text}”` : "(could not be checked)"),
    " ", el("button", { class: "accept", onclick: () => decide(d.id, "accept") }, "Accept"),
    " ", el("button", { class: "reject", onclick: () => decide(d.id, "reject") }, "Reject"),
    " ", el("button", { class: "both", onclick: () => decide(d.id, "both") }, "Keep both"))));
  if (!found.length) $("#disputed").append(el("li", {}, "nothing to decide"));
}

async function loadTasks() {
  const tasks = await call("GET", "/tasks");
  const items = [];
  for (const t of tasks) {
    const full = await call("GET", "/tasks/" + encodeURIComponent(t.id));
    items.push(el("li", {}, el("b", {}, full.title), ` (${full.status}, step ${full.current_step}/${full.steps.length})`,
      el("ol", {}, ...full.steps.map((s, i) => el("li", {}, (i < full.current_step ? "✓ " : "") + s))),
      el("ul", {}, ...(full.history || []).map((h) => el("li", { class: "vs" }, `${whenIso(h.at)} ${h.event}` + (h.from_step === null ? ` at step ${h.to_step}` : `: step ${h.from_step} → ${h.to_step}`) + (h.note ? ` (${h.note})` : ""))))));
  }
  $("#tasks").replaceChildren(...items);
  if (!items.length) $("#tasks").append(el("li", {}, "no tasks"));
}

async function loadUsage() {
  const u = await call("GET", "/usage?by=day");
  const top = Math.max(1, u.prompt_tokens, u.full_history_prompt_tokens);
  const row = (label, n, cls) => el("div", { class: "usage-row" }, el("span", {}, label),
    el("div", { class: "bar" }, el("i", { class: cls, style: `width:${(100 * n / top).toFixed(1)}%` })), el("span", {}, n.toLocaleString() + " tokens"));
  $("#usage").replaceChildren(row("every call we made", u.prompt_tokens, "relevance"),
    row("full-history baseline", u.full_history_prompt_tokens, "decay"),
    el("p", { class: "vs" }, u.saving_pct === null ? "no model calls recorded" : `${savingText(u.saving_pct)}; cost $${money(u.cost_usd)} against $${money(u.full_history_cost_usd)} sending the full session history to each answer`));
}

// the CLI's wording (doors/present.py saving_text) and its four decimals
function savingText(saving) {
  if (saving >= 0) return `${saving}% fewer prompt tokens`;
  return `${-saving}% more prompt tokens: the memory work (extraction, verification, summaries) costs more than ` +
    "the history it replaces while sessions are short; the saving comes as a session grows";
}

function money(usd) {
  return Number(usd).toFixed(4);
}

async function loadZone() {
  try {
    zone = (await (await fetch(api + "/health")).json()).timezone || "UTC";
  } catch (e) { throw new Error(`cannot reach the palace server: ${e.message}`); }
  document.body.dataset.zone = zone;
}

// everything again from the API (after every change); a failure throws for the caller to say
async function refresh() {
  await loadZone();
  await Promise.all([loadMemories(), loadDisputed(), loadTasks(), loadUsage()]);
  document.body.dataset.loaded = "1";
}

async function openUser() {
  if (!user) { say("name a user to inspect"); return; }
  $("#detail").hidden = true;
  await act(async () => { await refresh(); return `memories of ${user}`; });
}

$("#who").addEventListener("submit", (ev) => {
  ev.preventDefault();
  user = $("#user").value.trim();
  if ($("#token").value) sessionStorage.setItem("palace-token", $("#token").value);
  history.replaceState(null, "", "?user=" + encodeURIComponent(user));
  openUser();
});
$("#search").addEventListener("submit", (ev) => {
  ev.preventDefault();
  loadMemories().then((rows) => say(`${rows.length} memories`)).catch((e) => say(e.message, true));
});
$("#detail .pin").addEventListener("click", () => act(pinShown));
$("#detail .restore").addEventListener("click", () => act(restoreShown));
$("#detail .forget").addEventListener("click", () => act(async () => askForget()));
$("#confirm-forget .confirm").addEventListener("click", () => act(forgetShown));
$("#confirm-forget .cancel").addEventListener("click", () => {
  $("#confirm-forget").hidden = true;
  say(`kept ${shownId().slice(0, 8)}`);
});
$("#detail .close").addEventListener("click", () => { $("#detail").hidden = true; });
// nothing fails silently: an error no handler caught is the status line too
window.addEventListener("unhandledrejection", (ev) => say(ev.reason && ev.reason.message || String(ev.reason), true));
window.addEventListener("error", (ev) => say(ev.message, true));
$("#user").value = user;
openUser();
