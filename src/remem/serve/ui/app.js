// remem explorer: a thin face over remem's HTTP JSON API (../v1/...). Everything it
// shows comes from those routes; it ranks, explains and scopes nothing itself.
// Plain JS and SVG: no framework, no build step, nothing loaded from another host.
// Every text from memory is put in with textContent, never parsed as HTML.
"use strict";

const PAGE = 20;
const GRAPH_NODES = 30; // more is not readable as a drawing
const KEY = "remem-api-key"; // sessionStorage: gone when the tab closes
const SVG = "http://www.w3.org/2000/svg";

const state = { user: null, offset: 0, count: 0, engine: null, lastQuery: null };
const $ = (id) => document.getElementById(id);

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "text") node.textContent = value;
    else if (name.startsWith("data-") || name === "aria-current" || name === "title") node.setAttribute(name, value);
    else node[name] = value;
  }
  for (const child of children) node.append(child);
  return node;
}

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}

// -- talking to the API -----------------------------------------------------------------

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function api(method, path, body) {
  const headers = {};
  const key = sessionStorage.getItem(KEY);
  if (key) headers.Authorization = "Bearer " + key;
  const init = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch("../v1" + path, init);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = data.error || {};
    throw new ApiError(response.status, error.code || "http_error", error.message || response.statusText);
  }
  return data;
}

function userQuery(extra = {}) {
  return "?" + new URLSearchParams({ user_id: state.user, ...extra }).toString();
}

function showError(error) {
  if (error instanceof ApiError && error.status === 401) {
    sessionStorage.removeItem(KEY);
    $("key-form").hidden = false;
    $("forget-key").hidden = true;
    setStatus("This server needs an API key (remem keys create): it is kept in this tab only.");
    return;
  }
  setStatus(error.message || String(error));
}

function setStatus(text) {
  $("status").textContent = text || "";
  $("status").hidden = !text;
}

// -- users ------------------------------------------------------------------------------

async function loadUsers() {
  const { users } = await api("GET", "/users");
  const list = $("users");
  list.replaceChildren();
  for (const name of users) {
    const button = el("button", { type: "button", text: name, title: name, "data-user": name });
    button.addEventListener("click", () => openUser(name));
    list.append(el("li", {}, button));
  }
  $("no-users").hidden = users.length > 0;
  return users;
}

function markCurrent() {
  for (const button of $("users").querySelectorAll("button")) {
    button.setAttribute("aria-current", String(button.dataset.user === state.user));
  }
}

async function openUser(name) {
  state.user = name;
  state.offset = 0;
  const url = new URL(location.href);
  url.searchParams.set("user", name);
  history.replaceState(null, "", url);
  markCurrent();
  $("pick-user").hidden = true;
  $("user-view").hidden = false;
  $("user-title").textContent = name;
  $("results").hidden = true;
  state.lastQuery = null;
  await Promise.all([loadMemories(), loadShortTerm()]);
}

// -- memories ---------------------------------------------------------------------------

function when(iso) {
  return iso ? iso.replace("T", " ").slice(0, 16) : "";
}

async function loadMemories() {
  const data = await api("GET", "/memories" + userQuery({ limit: PAGE, offset: state.offset }));
  state.count = data.count;
  if (data.memories.length === 0 && state.offset > 0) {
    state.offset = Math.max(0, state.offset - PAGE); // the last page emptied by a delete
    return loadMemories();
  }
  const body = $("memories");
  body.replaceChildren();
  for (const m of data.memories) {
    const remove = el("button", { type: "button", className: "delete", text: "Delete" });
    remove.addEventListener("click", () => deleteMemory(m));
    const row = el(
      "tr",
      { "data-id": m.id },
      el("td", { className: "time", text: when(m.timestamp) }),
      el("td", { text: m.session_id || "" }),
      el("td", { text: m.speaker || "" }),
      el("td", {}, el("div", { className: "text", text: m.text }), el("div", { className: "id", text: m.id })),
      el("td", {}, remove),
    );
    body.append(row);
  }
  $("count").textContent = `(${data.count})`;
  const last = Math.min(state.offset + PAGE, data.count);
  $("page").textContent = data.count ? `${state.offset + 1}-${last} of ${data.count}` : "none";
  $("prev").disabled = state.offset === 0;
  $("next").disabled = last >= data.count;
}

async function deleteMemory(m) {
  const shown = m.text.length > 200 ? m.text.slice(0, 200) + "..." : m.text;
  if (!confirm(`Delete this memory of ${state.user}? It cannot be undone.\n\n"${shown}"`)) return;
  try {
    await api("DELETE", `/memories/${encodeURIComponent(m.id)}` + userQuery());
    setStatus("");
    await loadMemories();
    if (state.count === 0) await loadUsers().then(markCurrent);
    if (state.lastQuery) await search(state.lastQuery.query, state.lastQuery.k);
  } catch (error) {
    showError(error);
  }
}

// -- search: hits, how each was reached, the activated graph ----------------------------

async function search(query, k) {
  state.lastQuery = { query, k };
  const trace = await api("POST", "/trace", { user_id: state.user, query, k, limit: GRAPH_NODES });
  const rec = trace.recall;
  // memory ids in an explanation are shown as the memory's first words
  const texts = new Map(trace.nodes.filter((n) => n.kind === "episode").map((n) => [n.id, n.label]));
  for (const hit of rec.hits) texts.set(hit.id, hit.text);
  const list = $("hits");
  list.replaceChildren();
  for (const hit of rec.hits) {
    const who = hit.speaker ? hit.speaker + ": " : "";
    list.append(
      el(
        "li",
        { "data-id": hit.id },
        el("div", { className: "text", text: who + hit.text }),
        el("div", {
          className: "meta",
          text: `score ${hit.score.toFixed(4)} · ${when(hit.timestamp)}` +
            (hit.session_id ? ` · session ${hit.session_id}` : "") + ` · ${hit.id}`,
        }),
        // the times its words talk about, read when it was added (event_times)
        ...((hit.event_times || []).length ? [el("div", {
          className: "meta told",
          text: "tells of " + hit.event_times
            .map((e) => `${e.start.slice(0, 10)}${e.granularity === "day" ? "" : " to " + e.end.slice(0, 10)} ('${e.words}')`)
            .join(", "),
        })] : []),
        el("div", {
          className: "why",
          text: "via " + readable(rec.explanations[hit.id] || "the ranking", texts),
          title: rec.explanations[hit.id] || "",
          "data-explanation": rec.explanations[hit.id] || "",
        }),
      ),
    );
  }
  let verdict = `confidence ${rec.confidence.toFixed(3)}`;
  if (rec.refuse) verdict += " · the gate refuses: not in memory";
  if (rec.cache_hit !== null) verdict += rec.cache_hit ? " · answered from the cache" : " · cache miss";
  if (!rec.hits.length) verdict += " · no hits";
  $("verdict").textContent = `(${verdict})`;
  $("concepts").textContent = rec.concepts.length
    ? "Most activated concepts: " + rec.concepts.map(([c, a]) => `${c} (${a.toFixed(2)})`).join(", ")
    : "";
  $("results").hidden = false;
  $("graph-box").hidden = !trace.graph;
  if (trace.graph) drawGraph(trace.nodes, trace.edges);
  await loadShortTerm();
}

function readable(explanation, texts) {
  return explanation.replace(/memory ([0-9a-f]{8,})/g, (whole, id) =>
    texts.has(id) ? `memory "${short(texts.get(id), 40)}"` : whole,
  );
}

function heat(t) {
  // light blue-grey -> orange -> deep orange, as the legend's ramp
  const stops = [[232, 238, 247], [242, 166, 90], [194, 65, 12]];
  const x = Math.max(0, Math.min(1, t)) * 2;
  const i = Math.min(1, Math.floor(x));
  const f = x - i;
  const c = stops[i].map((v, j) => Math.round(v + (stops[i + 1][j] - v) * f));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

function layout(nodes, edges, width, height) {
  // Fruchterman-Reingold, deterministic: start on a circle (hits on an inner one),
  // repel every pair, pull along edges, a little gravity, a cooling step limit
  const n = nodes.length;
  const cx = width / 2;
  const cy = height / 2;
  const pos = nodes.map((node, i) => {
    const angle = (2 * Math.PI * i) / Math.max(n, 1);
    const r = node.rank ? 0.15 : 0.35;
    return { x: cx + Math.cos(angle) * r * width, y: cy + Math.sin(angle) * r * height };
  });
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  const links = edges.map((e) => [index.get(e.source), index.get(e.target)]);
  const k = Math.sqrt((width * height) / Math.max(n, 1)) * 0.5;
  const rounds = 250;
  for (let step = 0; step < rounds; step++) {
    const move = pos.map(() => ({ x: 0, y: 0 }));
    for (let a = 0; a < n; a++) {
      for (let b = a + 1; b < n; b++) {
        const dx = pos[a].x - pos[b].x;
        const dy = pos[a].y - pos[b].y;
        const d = Math.max(Math.hypot(dx, dy), 0.01);
        if (d > 2.5 * k) continue; // far apart: no push, so parts do not fly to the walls
        const f = (k * k) / d / d;
        move[a].x += dx * f; move[a].y += dy * f;
        move[b].x -= dx * f; move[b].y -= dy * f;
      }
    }
    for (const [a, b] of links) {
      const dx = pos[a].x - pos[b].x;
      const dy = pos[a].y - pos[b].y;
      const d = Math.max(Math.hypot(dx, dy), 0.01);
      const f = d / k;
      move[a].x -= dx * f; move[a].y -= dy * f;
      move[b].x += dx * f; move[b].y += dy * f;
    }
    const limit = (width / 10) * (1 - step / rounds) + 0.5;
    for (let i = 0; i < n; i++) {
      move[i].x += (cx - pos[i].x) * 0.06;
      move[i].y += (cy - pos[i].y) * 0.12;
      const d = Math.max(Math.hypot(move[i].x, move[i].y), 0.01);
      const s = Math.min(d, limit) / d;
      pos[i].x = Math.max(24, Math.min(width - 140, pos[i].x + move[i].x * s));
      pos[i].y = Math.max(18, Math.min(height - 18, pos[i].y + move[i].y * s));
    }
  }
  return pos;
}

function short(text, n) {
  return text.length > n ? text.slice(0, n - 1) + "…" : text;
}

function drawGraph(nodes, edges) {
  const box = $("graph");
  box.replaceChildren();
  const width = Math.max(box.clientWidth, 600);
  const height = 460;
  box.setAttribute("viewBox", `0 0 ${width} ${height}`);
  if (!nodes.length) {
    const empty = svg("text", { x: 20, y: 30, class: "label" });
    empty.textContent = "Nothing in the graph was activated.";
    box.append(empty);
    return;
  }
  const top = Math.max(...nodes.map((n) => n.activation), 1e-9);
  const carried = Math.max(...edges.map((e) => e.carried), 1e-9);
  const pos = layout(nodes, edges, width, height);
  const at = new Map(nodes.map((node, i) => [node.id, pos[i]]));
  const defs = svg("defs");
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 20, refY: 5, markerWidth: 8, markerHeight: 8, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" });
  marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#8aa0c4" }));
  defs.append(marker);
  box.append(defs);
  for (const e of edges) {
    const a = at.get(e.source);
    const b = at.get(e.target);
    if (!a || !b) continue;
    const line = svg("line", {
      x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: "edge",
      "stroke-width": (0.6 + 3.4 * (e.carried / carried)).toFixed(2),
      "stroke-opacity": (0.35 + 0.65 * (e.carried / carried)).toFixed(2),
      "marker-end": "url(#arrow)", "data-source": e.source, "data-target": e.target,
    });
    const tip = svg("title");
    tip.textContent = `carried ${e.carried.toFixed(3)} (edge weight ${e.weight.toFixed(3)})`;
    line.append(tip);
    box.append(line);
  }
  nodes.forEach((node, i) => {
    const p = pos[i];
    const group = svg("g", { "data-id": node.id, "data-kind": node.kind, "data-activation": node.activation.toFixed(4) });
    const fill = heat(node.activation / top);
    const cls = "node" + (node.rank ? " hit" : "");
    const r = node.rank ? 12 : 9;
    const shape = node.kind === "concept"
      ? svg("rect", { x: p.x - r * 0.8, y: p.y - r * 0.8, width: r * 1.6, height: r * 1.6, transform: `rotate(45 ${p.x} ${p.y})`, fill, class: cls })
      : svg("circle", { cx: p.x, cy: p.y, r, fill, class: cls });
    const tip = svg("title");
    const anchor = node.anchor ? `anchor (${node.anchor})` : "reached by activation";
    const what = node.kind === "concept" ? `concept "${node.label}"` : (node.speaker ? node.speaker + ": " : "") + node.label;
    tip.textContent = `${what}\nactivation ${node.activation.toFixed(3)} · ${anchor}` + (node.rank ? ` · hit #${node.rank}` : "");
    shape.append(tip);
    group.append(shape);
    if (node.rank) {
      const dark = node.activation / top > 0.55;
      const rank = svg("text", { x: p.x, y: p.y + 3.5, "text-anchor": "middle", class: "rank", fill: dark ? "#fff" : "#1d2433" });
      rank.textContent = String(node.rank);
      group.append(rank);
    }
    const label = svg("text", { x: p.x + r + 3, y: p.y + 3, class: "label" });
    label.textContent = node.kind === "concept" ? node.label : short(node.label, 28);
    group.append(label);
    box.append(group);
  });
}

// -- ILSTMA's short-term memory ---------------------------------------------------------

const SEGMENTS = [
  ["cache", "cache (prefetched)"],
  ["summary", "summary"],
  ["personality", "personality"],
  ["history", "recent history"],
  ["relevant", "relevant"],
];

async function loadShortTerm() {
  if (!state.engine || !state.engine.short_term || !state.user) {
    $("short-term").hidden = true;
    return;
  }
  const stm = await api("GET", "/short-term" + userQuery());
  const list = $("segments");
  list.replaceChildren();
  for (const [name, title] of SEGMENTS) {
    const value = stm[name];
    let shown;
    if (Array.isArray(value)) {
      shown = value.length ? el("ul", {}, ...value.map((t) => el("li", { text: t }))) : el("span", { className: "muted", text: "empty" });
    } else {
      shown = value ? document.createTextNode(value) : el("span", { className: "muted", text: "empty" });
    }
    list.append(el("dt", { text: title }), el("dd", { "data-segment": name }, shown));
  }
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  $("stm-meta").textContent = `(${plural(stm.tokens, "token")} · ${plural(stm.questions, "question")} · ` +
    `${stm.cache_ids.length} cached · ${stm.deferred_writes} writes buffered)`;
  $("short-term").hidden = false;
}

// -- start ------------------------------------------------------------------------------

async function start() {
  try {
    state.engine = await api("GET", "/engine");
    $("engine").textContent = "engine: " + state.engine.name;
    $("key-form").hidden = true;
    $("forget-key").hidden = !sessionStorage.getItem(KEY);
    setStatus("");
    const users = await loadUsers();
    const wanted = new URL(location.href).searchParams.get("user");
    if (wanted !== null) {
      if (users.includes(wanted)) await openUser(wanted);
      else setStatus(`No user ${JSON.stringify(wanted)} here.`);
    }
  } catch (error) {
    showError(error);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem(KEY, $("key").value.trim());
    $("key").value = "";
    start();
  });
  $("forget-key").addEventListener("click", () => {
    sessionStorage.removeItem(KEY);
    location.reload();
  });
  $("search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const k = Number.parseInt($("k").value, 10) || 10;
    search($("query").value, k).then(() => setStatus("")).catch(showError);
  });
  $("prev").addEventListener("click", () => {
    state.offset = Math.max(0, state.offset - PAGE);
    loadMemories().catch(showError);
  });
  $("next").addEventListener("click", () => {
    state.offset += PAGE;
    loadMemories().catch(showError);
  });
  start();
});
