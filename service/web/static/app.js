// The search page: builds its options from GET /ui/config, calls POST /search with explain on,
// and draws each hit's score breakdown, text, FD*, supporting chunks and Neo4j Browser link.
"use strict";

const $ = (id) => document.getElementById(id);
const DEFAULT_FUSION = "default"; // the fusion select's first option: the level's own
const COLOURS = {
  dense: "#4c78a8", bm25: "#f58518", tfidf: "#e45756", metadata: "#72b7b2",
  entity: "#54a24b", doc_dense: "#b279a2", doc_bm25: "#ff9da6", fd: "#c9a30c",
  pagerank: "#9d755d", "FD* rerank": "#8bc34a",
  doc: "#4c78a8", segment: "#72b7b2", triple: "#b279a2", text: "#f58518",
};
const STOP_WORDS = new Set(("a an and are as at be by did do does for from had has have how " +
  "i in is it its of on or that the their this to was were what when where which who why " +
  "with").split(" "));
let config = null;
let apiKey = sessionStorage.getItem("anchorgraph-api-key");

// el("a", {href: "…", className: "x"}, "text", child) → an element; text is never parsed as HTML.
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key in node) node[key] = value;
    else node.setAttribute(key, value);
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

// A number to `digits` places, without the sign of a negative zero ("-0.00").
function fixed(value, digits = 3) {
  const text = Number(value).toFixed(digits);
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

// --- options ------------------------------------------------------------------------------
function fillSelect(select, values, chosen) {
  select.replaceChildren(...values.map((value) => el("option", { value, selected: value === chosen }, value)));
}

function slider(id, name, value, checked) {
  const range = el("input", {
    type: "range", id: `weight-${id}`, min: "0", max: "1", step: "0.05", value: String(value),
    "aria-label": `${name} weight`, dataset: { name },
  });
  const shown = el("output", { htmlFor: range.id }, fixed(value, 2));
  range.addEventListener("input", () => { shown.value = fixed(range.value, 2); });
  const swatch = el("span", { className: "swatch", style: `background:${COLOURS[name] || "#999"}` });
  const label = checked === null
    ? el("label", { htmlFor: range.id }, swatch, name)
    : el("label", {}, el("input", { type: "checkbox", checked, dataset: { path: name } }), swatch, name);
  return el("div", { className: "slider" }, label, range, shown);
}

function buildPaths() {
  const weights = config.path_weights[$("level").value];
  $("path-rows").replaceChildren(...Object.entries(weights).map(([path, weight]) => slider(path, path, weight, true)));
}

function buildSignals() {
  $("signal-rows").replaceChildren(...Object.entries(config.signal_weights).map(([name, weight]) => slider(`signal-${name}`, name, weight, null)));
}

function showModeOptions() {
  const mode = $("mode").value;
  $("paths").hidden = !["hybrid", "multisignal"].includes(mode);
  $("signals").hidden = mode !== "multisignal";
}

function request() {
  const mode = $("mode").value;
  // Each stage's options in its group (API 0.2: docs/api.md).
  const fusion = { normalisation: $("normalisation").value };
  const body = {
    query: $("query").value.trim(), mode, level: $("level").value, k: Number($("k").value),
    explain: true, fusion,
    expand: { links: $("expand").checked, bridges: $("bridge").checked },
    fd: { rerank: $("fd-rerank").checked },
  };
  if ($("collection").value) body.collections = [$("collection").value];
  // "default": the API picks the level's fusion (floor_sum for documents, weighted_sum else).
  if ($("fusion").value !== DEFAULT_FUSION) fusion.method = $("fusion").value;
  if ($("use-threshold").checked) body.threshold = Number($("threshold").value);
  if (["hybrid", "multisignal"].includes(mode)) {
    const rows = [...$("path-rows").querySelectorAll(".slider")];
    body.paths = rows.filter((row) => row.querySelector("[data-path]").checked).map((row) => row.querySelector("[data-path]").dataset.path);
    const weights = Object.fromEntries(rows.map((row) => {
      const range = row.querySelector("input[type=range]");
      return [range.dataset.name, Number(range.value)];
    }));
    // Sent only when moved from the defaults: else the API ranks with the collection's own
    // weights where it has them (anchorgraph tune), or the defaults.
    const defaults = config.path_weights[$("level").value];
    if (Object.entries(weights).some(([path, weight]) => Math.abs(weight - (defaults[path] ?? 0)) > 1e-9)) {
      fusion.weights = weights;
    }
  }
  if (mode === "multisignal") {
    body.signal_weights = Object.fromEntries([...$("signal-rows").querySelectorAll("input[type=range]")].map((range) => [range.dataset.name, Number(range.value)]));
  }
  return body;
}

// --- search -------------------------------------------------------------------------------
// A call to the API with the key, when one was given; a 401 asks for the key once, and again.
async function api(path, init = {}) {
  const headers = { ...(init.headers || {}) };
  if (apiKey) headers["x-api-key"] = apiKey;
  const response = await fetch(path, { ...init, headers });
  if (response.status === 401) {
    const key = prompt("This API needs its key (X-API-Key):");
    if (key) { apiKey = key; sessionStorage.setItem("anchorgraph-api-key", key); return api(path, init); }
  }
  return response;
}

async function search() {
  const body = request();
  if (!body.query) return;
  // What the API would refuse with a 422 is said here, without asking it. The API counts
  // characters (code points), not JavaScript's UTF-16 units.
  const length = [...body.query].length;
  if (length > config.max_query_chars) {
    return showError(`The query is ${length} characters long; the longest the API takes is ${config.max_query_chars}.`);
  }
  if (body.paths && !body.paths.length) {
    return showError("Choose at least one path under “Paths and weights”: with none checked there is nothing to search.");
  }
  const where = body.collections ? `&collection=${encodeURIComponent(body.collections[0])}` : "";
  history.replaceState(null, "", `?q=${encodeURIComponent(body.query)}${where}`);
  setStatus("Searching…");
  let response;
  try {
    response = await api("/search", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  } catch (error) {
    return showError(`The API did not answer: ${error.message}`);
  }
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = answer.detail || answer.title || response.statusText;
    return showError(`The search failed (HTTP ${response.status}): ${detail}`);
  }
  render(answer);
}

// An error replaces the results: what is on screen never belongs to another query than the
// one the status line speaks of.
function showError(message) {
  setStatus(message, true);
  $("no-match").hidden = true;
  $("detected").replaceChildren();
  $("timings").replaceChildren();
  $("timings").hidden = true;
  $("results").replaceChildren();
}

// The collections the key may read, as the picker's options (every collection by default).
async function loadCollections() {
  let collections = [];
  try {
    const response = await api("/collections");
    if (response.ok) collections = await response.json();
  } catch (error) {
    return;
  }
  const chosen = new URLSearchParams(location.search).get("collection") || "";
  $("collection").replaceChildren(
    el("option", { value: "", selected: !chosen }, "every collection"),
    ...collections.map((c) => el("option", { value: c.name, selected: c.name === chosen }, `${c.name} (${c.documents})`)));
}

function setStatus(message, isError = false, cutShort = false) {
  $("status").textContent = message;
  $("status").classList.toggle("error", isError);
  $("status").classList.toggle("cut-short", cutShort);
}

// --- results ------------------------------------------------------------------------------
function render(result) {
  const terms = queryTerms(result.query);
  const hits = result.hits;
  const cut = result.cut_short.length ? ` · cut short by the deadline: ${result.cut_short.join(", ")} left out, the hits unexpanded` : "";
  setStatus(`${hits.length} ${hits.length === 1 ? "hit" : "hits"} in ${fixed(result.total_ms, 0)} ms · ${result.round_trips} database round trips · ${result.mode}, ${result.level} level · ranking ${result.ranking}${cut}`, false, cut !== "");
  $("no-match").hidden = result.matched !== false;
  renderDetected(result);
  renderTimings(result.timings);
  const top = Math.max(...hits.map((hit) => positive(parts(hit))), 1e-9);
  $("results").replaceChildren(...hits.map((hit) => renderHit(hit, result, terms, top)));
}

function renderDetected(result) {
  const entities = result.entities.map((entity) => el("span", {
    className: "badge entity", title: `${entity.how} match, score ${fixed(entity.score)}`,
    dataset: { entity: entity.id },
  }, entity.name, el("small", {}, `${entity.type} · ${entity.how}`)));
  // As the query wrote it ("AG-2048"), not as the entity's id ("aerograph ag-2048").
  const written = result.identifiers_as_written || {};
  const identifiers = result.identifiers.map((identifier) =>
    el("span", { className: "badge identifier", title: `identifier of the entity “${identifier}”`, dataset: { identifier } }, written[identifier] || identifier));
  $("detected").replaceChildren(...entities, ...identifiers);
}

function renderTimings(timings) {
  $("timings").hidden = !timings.length;
  $("timings").replaceChildren(el("span", {}, "Stages:"), ...timings.map((timing) =>
    el("span", { className: "stage", dataset: { stage: timing.stage } }, `${timing.stage} `, el("b", {}, `${fixed(timing.ms, 1)} ms`))));
}

// What made a hit's score, as [name, contribution] pairs that add up to it: the paths' shares
// and the priors' (hybrid), or the signals' (multisignal); after an FD* rerank those are scaled
// by (1 − λ) and the rerank's own share is added.
function parts(hit) {
  let entries = hit.signals
    ? Object.entries(hit.signals.contributions)
    : [...Object.entries(hit.paths).map(([path, score]) => [path, score.contribution]), ...Object.entries(hit.priors)];
  if (hit.fd && hit.fd.reranked_from !== null && hit.fd.reranked_from !== undefined) {
    const scale = hit.fd.reranked_from ? (hit.score - hit.fd.contribution) / hit.fd.reranked_from : 0;
    entries = [...entries.map(([name, value]) => [name, value * scale]), ["FD* rerank", hit.fd.contribution]];
  }
  return entries.filter(([, value]) => value !== 0);
}

const positive = (entries) => entries.reduce((sum, [, value]) => sum + Math.max(value, 0), 0);

function breakdown(hit, top) {
  const entries = parts(hit);
  const total = positive(entries);
  const label = entries.map(([name, value]) => `${name} ${fixed(value)}`).join(", ");
  const bar = el("div", { className: "bar", role: "img", "aria-label": `Score breakdown: ${label}` },
    el("div", { style: `display:flex;width:${(100 * total) / top}%` }, ...entries.filter(([, value]) => value > 0).map(([name, value]) =>
      el("span", {
        className: "segment", title: `${name}: ${fixed(value)}${explainPath(hit, name)}`,
        style: `width:${(100 * value) / total}%;background:${COLOURS[name] || "#999"}`,
      }))));
  const legend = el("ul", { className: "legend" }, ...entries.map(([name, value]) => el("li", {
    dataset: { part: name, contribution: String(value) },
  }, el("span", { className: "swatch", style: `background:${COLOURS[name] || "#999"}` }), `${name} `, el("b", {}, fixed(value)))));
  return [bar, legend];
}

function explainPath(hit, name) {
  const path = hit.paths[name];
  return path ? ` (raw ${fixed(path.raw)}, normalised ${fixed(path.normalised)}, rank ${path.rank})` : "";
}

// One sentence, in the words of docs/design.md ("Factual density").
const FD_MEANING = "FD* (factual density): how many checkable facts this text states per word, " +
  "compared with texts of similar length in its collection and weighted by its source's " +
  "authority; above 0 is denser than usual, below 0 sparser.";

// A source type only when it says more than the file format ("markdown" says nothing new).
function sourceBadge(fd) {
  if (!fd.source_type || config.formats.includes(fd.source_type)) return null;
  return el("span", { className: "badge source", title: `source type, authority ${fd.a_source}` }, fd.source_type);
}

// FD* coloured by its sign as shown: above typical, below typical, typical or unknown.
function fdBadge(fd) {
  const shown = fd.fd_star === null ? null : fixed(fd.fd_star, 2);
  const sign = shown === null ? "none" : Number(shown) > 0 ? "positive" : Number(shown) < 0 ? "negative" : "zero";
  const how = `FD_raw ${fixed(fd.fd_raw, 4)} in the ${fd.length_bin || "unbinned"} bin (μ ${fd.bin_mean ?? "–"}, σ ${fd.bin_sd ?? "–"}), z ${fd.z ?? "–"}, authority ${fd.a_source}`;
  return el("span", { className: `badge fd ${sign}`, title: `${FD_MEANING}\n${how}`, dataset: { sign } },
    `FD* ${shown ?? "–"}`, el("small", {}, `rescaled ${fixed(fd.rescaled, 2)}`));
}

// Where a hit's text stands, as the command line cites it: its page(s), its characters.
function pagesCited(hit) {
  if (!hit.pages.length) return "";
  const first = Math.min(...hit.pages), last = Math.max(...hit.pages);
  return first === last ? ` · page ${first}` : ` · pages ${first}–${last}`;
}

function spanCited(hit) {
  return hit.start === null || hit.end === null ? "" : ` · characters ${hit.start}–${hit.end}`;
}

// What speaks for a hit beside its nearness to the query (docs/search.md, "When nothing
// matches"): its kinds of evidence, or none.
function evidenceBadge(evidence) {
  if (!evidence) return null;
  const cosine = evidence.cosine === null ? "not among the dense path's candidates" : `cosine ${fixed(evidence.cosine)}`;
  const terms = evidence.terms.length ? `query terms in its text: ${evidence.terms.join(", ")}` : "none of the query's terms in its text";
  const graph = evidence.kinds.includes("graph") ? "; placed by the expansion from a hit with evidence" : "";
  const title = `${terms}; ${cosine}${graph}`;
  return evidence.matched
    ? el("span", { className: "badge evidence", title, dataset: { matched: "true" } }, `evidence: ${evidence.kinds.join(", ")}`)
    : el("span", { className: "badge evidence none", title, dataset: { matched: "false" } }, "no evidence");
}

function renderHit(hit, result, terms, top) {
  const level = result.level;
  const fd = hit.fd;
  const badges = [evidenceBadge(hit.evidence), ...(fd ? [sourceBadge(fd), fdBadge(fd)] : [])];
  const node = `${hit.collection}/${level === "document" ? hit.document_id : hit.chunk_id}`;
  return el("li", { className: "hit", dataset: { chunkId: hit.chunk_id, collection: hit.collection, score: String(hit.score) } },
    el("div", { className: "hit-head" },
      el("span", { className: "rank" }, `${hit.rank}.`),
      el("h2", {}, hit.title || hit.document_id),
      ...badges,
      el("span", { className: "score", title: "score" }, fixed(hit.score, 4))),
    el("div", { className: "where" }, el("span", { className: "collection" }, hit.collection), ` · ${hit.chunk_id}${pagesCited(hit)}${spanCited(hit)} · ${hit.n_tokens} tokens`),
    ...breakdown(hit, top),
    el("p", { className: "text" }, highlighted(hit.text, terms)),
    el("div", { className: "actions" },
      browserAnchor(node, "Neighbourhood in Neo4j Browser"),
      el("a", { href: `/documents/${encodeURI(hit.document_id)}?collection=${encodeURIComponent(hit.collection)}`, target: "_blank", rel: "noopener" }, "Document (JSON)"),
      judgeButtons(hit, result.query)),
    hit.supporting.length ? renderSupporting(hit.collection, hit.supporting, terms) : null);
}

// Relevant / not relevant: a judgment of the hit's document for this query (POST /judgments),
// which `anchorgraph tune` fits the collection's weights to.
function judgeButtons(hit, query) {
  const said = el("span", { className: "judged", role: "status" });
  const button = (relevant, label) => el("button", {
    type: "button", className: "judge", dataset: { relevant: String(relevant) },
    onclick: async () => {
      const body = { query, document_id: hit.document_id, collection: hit.collection, relevant };
      const response = await api("/judgments", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
        .catch((error) => ({ ok: false, statusText: error.message, json: async () => ({}) }));
      const answer = await response.json().catch(() => ({}));
      said.textContent = response.ok ? (relevant ? "judged relevant" : "judged not relevant")
        : `not recorded: ${answer.detail || response.statusText}`;
    },
  }, label);
  return el("span", { className: "judge-buttons" }, button(true, "Relevant"), button(false, "Not relevant"), said);
}

// A hit's supporting chunks, all of its collection (links never leave one).
function renderSupporting(collection, supporting, terms) {
  const items = supporting.map((chunk) => el("li", { dataset: { chunkId: chunk.chunk_id } },
    el("strong", {}, chunk.title || chunk.document_id), ` · score ${fixed(chunk.score)} · ${chunk.hop} ${chunk.hop === 1 ? "hop" : "hops"} · `,
    browserAnchor(`${collection}/${chunk.chunk_id}`, "in Neo4j Browser"),
    el("div", { className: "hops" }, ...chunk.path.flatMap((hop, index) => [
      index ? " → " : "", hop.kind === "entity" ? `via entity ${hop.entity}` : el("q", {}, hop.anchor_text || hop.href),
      ` (validation ${fixed(hop.validation, 2)}, anchor FD* ${fixed(hop.anchor_fd, 2)})`,
    ])),
    el("p", { className: "text" }, highlighted(chunk.text, terms))));
  return el("details", { className: "supporting" },
    el("summary", {}, `${supporting.length} supporting ${supporting.length === 1 ? "chunk" : "chunks"} along links and entities`),
    el("ol", {}, ...items));
}

// --- text ---------------------------------------------------------------------------------
function queryTerms(query) {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+(?:[-'][\p{L}\p{N}]+)*/gu) || [];
  return [...new Set(words.filter((word) => word.length > 1 && !STOP_WORDS.has(word)))];
}

// The text with every word that starts with a query term in <mark>.
function highlighted(text, terms) {
  const fragment = document.createDocumentFragment();
  if (!terms.length) { fragment.append(text); return fragment; }
  const alternatives = [...terms].sort((a, b) => b.length - a.length).map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join("|")})[\\p{L}\\p{N}]*`, "giu");
  let last = 0;
  for (const found of text.matchAll(pattern)) {
    fragment.append(text.slice(last, found.index), el("mark", {}, found[0]));
    last = found.index + found[0].length;
  }
  fragment.append(text.slice(last));
  return fragment;
}

// --- Neo4j Browser ------------------------------------------------------------------------
function browserUrl() {
  return config.browser_url || `${location.protocol}//${location.hostname}:7474/browser/`;
}

// A Cypher string literal. Browser reads `arg` from its decoded URL up to the first '#' or '&',
// so those (and control characters) are written as \u escapes, which Cypher reads back.
function cypherString(value) {
  const escaped = value.replace(/[\\"]/g, "\\$&").replace(/[\u0000-\u001f#&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return `"${escaped}"`;
}

// The Browser query of a node's neighbourhood; `key` is the node's key: its collection, '/', its id.
function browserLink(key) {
  const statement = config.neighbourhood_cypher.replace(/\$id\b/g, cypherString(key));
  return `${browserUrl()}?cmd=edit&arg=${encodeURIComponent(statement)}`;
}

// Every Browser link opens in the one tab of this name: later links load their query there
// instead of opening a tab each. No rel="noopener": a tab opened without an opener cannot be
// found by its name, so each click would open a new one. (The login is Browser's to keep: 5.24
// keeps it for its origin, in any tab, unless browser.retain_connection_credentials is false.)
const BROWSER_TAB = "neo4j-browser";

function browserAnchor(key, text) {
  return el("a", { className: "browser-link", href: browserLink(key), target: BROWSER_TAB }, text);
}

// --- start --------------------------------------------------------------------------------
// "Add documents": an ingest job (POST /ingest/jobs, docs/jobs.md) followed until it ends.
async function addDocuments(event) {
  event.preventDefault();
  const files = document.getElementById("add-files").files;
  const source = document.getElementById("add-source").value.trim();
  const collection = document.getElementById("add-collection").value.trim();
  const status = document.getElementById("add-status");
  let init;
  if (files.length) {
    const form = new FormData();
    for (const file of files) form.append("files", file, file.name);
    form.append("collection", collection);
    init = { method: "POST", body: form };
  } else if (source) {
    init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ source, collection }) };
  } else {
    status.textContent = "Choose files, or name a folder or URL.";
    return;
  }
  const response = await api("/ingest/jobs", init);
  const answer = await response.json();
  if (!response.ok) {
    status.textContent = `Refused: ${answer.detail || answer.title}`;
    return;
  }
  followJob(answer.url);
}

async function followJob(url) {
  const progress = document.getElementById("add-progress");
  const status = document.getElementById("add-status");
  const cancel = document.getElementById("add-cancel");
  progress.hidden = false;
  cancel.hidden = false;
  cancel.onclick = () => api(url, { method: "DELETE" });
  for (;;) {
    const job = await (await api(url)).json();
    progress.max = Math.max(job.listed, 1);
    progress.value = job.read;
    const eta = job.eta_s === null ? "" : `, ${Math.round(job.eta_s)} s left`;
    status.textContent = `${job.state}: ${job.read} of ${job.listed} files read, ${job.written} written, ` +
      `${job.unchanged} unchanged, ${job.refused} refused, ${job.skipped} skipped${eta}`;
    if (job.state !== "queued" && job.state !== "running") {
      cancel.hidden = true;
      const reasons = [...job.refusals.map((r) => r.message), ...job.skips, job.error].filter(Boolean);
      if (reasons.length) status.textContent += ` (${reasons.join("; ")})`;
      if (job.state === "done") loadCollections();
      return job;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function start() {
  config = await (await fetch("/ui/config")).json();
  $("query").maxLength = config.max_query_chars;
  fillSelect($("mode"), config.modes, "hybrid");
  fillSelect($("normalisation"), config.normalisations, "l2");
  fillSelect($("fusion"), [DEFAULT_FUSION, ...config.fusions], DEFAULT_FUSION);
  buildPaths();
  buildSignals();
  showModeOptions();
  // The graph's parts a search runs by default (the API's defaults); unticked, the request
  // turns them off.
  $("expand").checked = config.expand.links;
  $("bridge").checked = config.expand.bridges;
  $("browser-home").href = browserUrl();
  $("browser-home").target = BROWSER_TAB;
  loadCollections();
  $("level").addEventListener("change", buildPaths);
  $("mode").addEventListener("change", showModeOptions);
  $("use-threshold").addEventListener("change", () => { $("threshold").disabled = !$("use-threshold").checked; });
  $("threshold").addEventListener("input", () => { $("threshold-value").value = fixed($("threshold").value, 2); });
  $("search").addEventListener("submit", (event) => { event.preventDefault(); search(); });
  $("add").addEventListener("submit", addDocuments);
  document.addEventListener("keydown", (event) => {
    if (event.key === "/" && document.activeElement.tagName !== "INPUT") { event.preventDefault(); $("query").focus(); }
  });
  const query = new URLSearchParams(location.search).get("q");
  if (query) { $("query").value = query; search(); }
}

start();
