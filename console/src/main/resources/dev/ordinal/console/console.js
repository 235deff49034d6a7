// The console's page: GET /api/pipe every 2 s, the figures in tables, and the lag and slot plots:
// their last hour loaded from GET /api/history (kept by the console's server), then each snapshot
// added. With a bearer token (asked for when the API answers 401 or 403) in this tab's session
// storage, sent on every call. With --allow-actions, dead letters can be re-driven or discarded:
// a dry run first, then its Execute button.
import uPlot from "/uplot/uPlot.esm.js";

const REFRESH_MS = 2000;
const KEEP_SECONDS = 3600;
const COLORS = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#be185d"];

const history = { lag: { t: [], series: new Map() }, slot: { t: [], series: new Map() } };
const plots = {};

function api(path, options = {}) {
  const headers = Object.assign({}, options.headers);
  const token = sessionStorage.getItem("ordinal-console-token");
  if (token) headers.Authorization = "Bearer " + token;
  return fetch(path, Object.assign({ cache: "no-store" }, options, { headers }));
}

function signIn(why) {
  const form = document.getElementById("sign-in");
  form.hidden = false;
  document.getElementById("sign-in-why").textContent = why;
}

document.getElementById("sign-in").addEventListener("submit", (e) => {
  e.preventDefault();
  sessionStorage.setItem("ordinal-console-token", document.getElementById("token").value.trim());
  document.getElementById("sign-in").hidden = true;
  loadHistory();
});

function cell(row, text, figure, numeric) {
  const td = row.insertCell();
  td.textContent = text === null || text === undefined ? "–" : String(text);
  if (figure) td.dataset.figure = figure;
  if (numeric) td.className = "n";
  return td;
}

function rows(id, items, fill) {
  const body = document.getElementById(id);
  body.replaceChildren();
  for (const item of items || []) fill(body.insertRow(), item);
}

function bytes(n) {
  if (n === null || n === undefined) return null;
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = n;
  while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return (i === 0 ? v : v.toFixed(1)) + " " + units[i];
}

// a timestamp as its time of day (UTC); the whole instant in the cell's tooltip
function clock(iso) {
  return iso ? iso.slice(11, 19) + "Z" : null;
}

function seconds(ms) {
  return ms === null || ms === undefined ? null : (ms / 1000).toFixed(1) + " s";
}

async function act(action, request, execute) {
  const out = document.getElementById("action-result");
  out.textContent = (execute ? "Executing " : "Dry run of ") + action + " on " + request.topic + "…";
  const response = await api("/api/dlq/" + action, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(Object.assign({ execute }, request)),
  });
  const r = await response.json();
  out.replaceChildren();
  if (!response.ok) {
    out.textContent = "Refused (" + response.status + "): " + r.detail;
    return;
  }
  const what = request.topic + (request.error ? " (error " + request.error + ")" : "");
  out.textContent =
    (r.executed ? "Executed: " : "Dry run, nothing changed: ") +
    (action === "redrive"
      ? r.redriven + (r.executed ? " re-driven" : " would be re-driven") + ", " +
        r.refused + " refused by the loop guard (limit " + r.maxRedrives + "), " + r.skipped + " skipped"
      : r.discarded + (r.executed ? " discarded" : " would be discarded") + ", " +
        r.alreadyDiscarded + " discarded before") +
    " — " + what + ". ";
  if (!r.executed) {
    const b = document.createElement("button");
    b.id = "execute-action";
    b.textContent = "Execute " + action;
    b.addEventListener("click", () => act(action, request, true));
    out.append(b);
  }
}

function render(p) {
  document.getElementById("taken-at").textContent = p.takenAt;
  document.getElementById("mode").textContent = p.actions ? "actions allowed" : "read-only";
  const errors = document.getElementById("errors");
  errors.replaceChildren();
  for (const [part, message] of Object.entries(p.errors || {})) {
    const div = document.createElement("div");
    div.textContent = part + ": " + message;
    div.dataset.figure = "error:" + part;
    errors.append(div);
  }
  rows("outboxes", p.outboxes, (r, o) => {
    cell(r, o.schema);
    cell(r, o.rows, "outbox:" + o.schema + ":rows", true);
    cell(r, o.writtenLastMinute, "outbox:" + o.schema + ":rate", true);
    cell(r, clock(o.newestWrittenAt)).title = o.newestWrittenAt || "";
    cell(r, clock(o.relayedThrough)).title = o.relayedThrough || "";
    cell(r, o.unrelayedAtMost, "outbox:" + o.schema + ":unrelayed", true);
  });
  rows("slots", p.slots, (r, s) => {
    cell(r, s.slot);
    cell(r, s.active ? "yes" : "no").className = s.active ? "ok" : "bad";
    cell(r, bytes(s.restartLagBytes), "slot:" + s.slot + ":restart", true);
    cell(r, bytes(s.confirmedLagBytes), "slot:" + s.slot + ":confirmed", true);
    cell(r, s.walStatus);
  });
  rows("groups", p.groups, (r, g) => {
    cell(r, g.group);
    cell(r, g.state, "group:" + g.group + ":state");
    cell(r, g.members, "group:" + g.group + ":members", true);
    cell(r, g.lag, "group:" + g.group + ":lag", true);
    cell(r, seconds(g.timeLagMs), null, true);
    cell(r, g.status, "group:" + g.group + ":status").className = g.status === "OK" ? "ok" : "";
    cell(r, Object.entries(g.topics).map(([t, n]) => t + " " + n).join(", "));
  });
  const head = document.getElementById("invoice-head");
  const counts = document.getElementById("invoices");
  head.replaceChildren();
  counts.replaceChildren();
  for (const [status, n] of Object.entries((p.invoices || {}).byStatus || {})) {
    head.append(Object.assign(document.createElement("th"), { textContent: status }));
    cell(counts, n, "invoices:" + status, true);
  }
  const invoice = (r, i) => {
    cell(r, "#" + i.id);
    cell(r, i.series + " " + (i.number ?? "–"));
    cell(r, i.status);
    cell(r, clock(i.createdAt)).title = i.createdAt || "";
    cell(r, i.lastError);
  };
  rows("stuck", (p.invoices || {}).stuck, invoice);
  rows("rejected", (p.invoices || {}).rejected, invoice);
  rows("audit", p.audit, (r, a) => {
    cell(r, a.series);
    cell(r, a.highest, "audit:" + a.series + ":highest", true);
    cell(r, a.gaps.length ? a.gaps.join(", ") : "none", "audit:" + a.series + ":gaps").className =
      a.gaps.length ? "bad" : "ok";
    cell(r, a.duplicates.length ? a.duplicates.join(", ") : "none").className =
      a.duplicates.length ? "bad" : "ok";
  });
  const letters = [];
  for (const d of p.dlq || []) {
    const errors = Object.entries(d.byError || {});
    if (!errors.length) errors.push([null, 0]);
    errors.forEach(([error, n], i) => letters.push({ d, error, n, first: i === 0 }));
  }
  rows("dlq", letters, (r, x) => {
    cell(r, x.first ? x.d.topic : "");
    cell(r, x.first ? x.d.records : "", x.first ? "dlq:" + x.d.topic : null, true);
    cell(r, x.first ? x.d.letters : "", x.first ? "dlq:" + x.d.topic + ":letters" : null, true);
    cell(r, x.error ?? "–");
    cell(r, x.n, x.error === null ? null : "dlq:" + x.d.topic + ":error:" + x.error, true);
    const actions = cell(r, "");
    actions.className = "action";
    if (p.actions && x.error !== null) {
      const error = x.error === "-" ? null : x.error;
      for (const action of ["redrive", "discard"]) {
        const b = document.createElement("button");
        b.textContent = action === "redrive" ? "Re-drive…" : "Discard…";
        b.dataset.action = action + ":" + x.d.topic + ":" + x.error;
        b.addEventListener("click", () => act(action, { topic: x.d.topic, error }, false));
        actions.append(b);
      }
    }
  });
  rows("replays", p.replays, (r, x) => {
    for (const v of [x.id, x.group, x.topic, x.target, x.executedBy, x.executedAt]) cell(r, v);
    cell(r, x.partitions, null, true);
    cell(r, x.redelivered, "replay:" + x.id + ":redelivered", true);
    const report = x.report || {};
    cell(r, report.read, "replay:" + x.id + ":read", true);
    cell(r, report.duplicates, "replay:" + x.id + ":duplicates", true);
    cell(r, report.newEffects, "replay:" + x.id + ":new-effects", true);
    const state = report.error ?? (report.final ? "final" : "not caught up");
    cell(r, state + " (inbox consumer " + report.consumer + ")", "replay:" + x.id + ":report");
  });
  rows("services", p.services, (r, s) => {
    cell(r, s.url);
    cell(r, s.service);
    cell(r, s.ready ? "yes" : "no", "service:" + s.url + ":ready").className = s.ready ? "ok" : "bad";
    cell(r, s.status);
    cell(r, s.role, "service:" + s.url + ":role");
    cell(r, s.ackP99Seconds === null || s.ackP99Seconds === undefined ? null : s.ackP99Seconds.toFixed(3) + " s", null, true);
    cell(r, s.duplicatesSkipped, "service:" + s.url + ":duplicates", true);
  });
}

function remember(h, t, values) {
  if (h.t.length && t <= h.t[h.t.length - 1]) return;
  h.t.push(t);
  for (const [name, v] of values) {
    if (!h.series.has(name)) h.series.set(name, new Array(h.t.length - 1).fill(null));
  }
  for (const [name, list] of h.series) list.push(values.has(name) ? values.get(name) : null);
  while (h.t.length && h.t[0] < t - KEEP_SECONDS) {
    h.t.shift();
    for (const list of h.series.values()) list.shift();
  }
}

function draw(key, h, element) {
  const names = [...h.series.keys()];
  const data = [h.t, ...names.map((n) => h.series.get(n))];
  const plot = plots[key];
  if (plot && plot.names.join("\n") === names.join("\n")) {
    plot.u.setData(data);
    return;
  }
  if (plot) plot.u.destroy();
  const opts = {
    width: 560,
    height: 220,
    series: [{}, ...names.map((n, i) => ({ label: n, stroke: COLORS[i % COLORS.length], width: 2 }))],
    axes: [{}, { size: 70 }],
  };
  plots[key] = { names, u: new uPlot(opts, data, document.getElementById(element)) };
}

function plot(p) {
  const t = Date.parse(p.takenAt) / 1000;
  remember(history.lag, t, new Map((p.groups || []).map((g) => [g.group, g.lag])));
  remember(history.slot, t, new Map((p.slots || []).map((s) => [s.slot, s.restartLagBytes])));
  draw("lag", history.lag, "lag-plot");
  draw("slot", history.slot, "slot-plot");
}

// the last hour kept by the server: the plots start from it
async function loadHistory() {
  const response = await api("/api/history");
  if (!response.ok) return;
  const h = await response.json();
  for (const key of ["lag", "slot"]) {
    history[key].t = h[key].t.slice();
    history[key].series = new Map(Object.entries(h[key].series).map(([n, v]) => [n, v.slice()]));
  }
}

let lastTaken = null;

async function refresh() {
  try {
    const response = await api("/api/pipe");
    const p = await response.json();
    if (response.status === 401 || response.status === 403) {
      signIn(p.detail);
      return;
    }
    render(p);
    if (p.takenAt !== lastTaken) {
      lastTaken = p.takenAt;
      plot(p);
    }
    document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes || 0) + 1);
  } catch (e) {
    document.getElementById("errors").textContent = "console: " + e;
  } finally {
    setTimeout(refresh, REFRESH_MS);
  }
}

loadHistory().finally(refresh);
