// The console's page: GET /api/pipe every 2 s, the figures in tables, and the lag and slot plots
// drawn from the snapshots this page has fetched (the history is the page's own: the server keeps
// none, so it starts empty on each load and holds at most the last hour).
import uPlot from "/uplot/uPlot.esm.js";

const REFRESH_MS = 2000;
const KEEP_SECONDS = 3600;
const COLORS = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#be185d"];

const history = { lag: { t: [], series: new Map() }, slot: { t: [], series: new Map() } };
const plots = {};

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

function render(p) {
  document.getElementById("taken-at").textContent = p.takenAt;
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
  rows("dlq", p.dlq, (r, d) => {
    cell(r, d.topic);
    cell(r, d.records, "dlq:" + d.topic, true);
  });
  rows("replays", p.replays, (r, x) => {
    for (const v of [x.id, x.group, x.topic, x.target, x.executedBy, x.executedAt]) cell(r, v);
    cell(r, x.partitions, null, true);
    cell(r, x.redelivered, null, true);
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

let lastTaken = null;

async function refresh() {
  try {
    const response = await fetch("/api/pipe", { cache: "no-store" });
    const p = await response.json();
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

refresh();
