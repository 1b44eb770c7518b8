// The playground's page: reads the form, calls LRO through lro.mjs, shows what comes back.
import * as lro from "./lro.mjs";
import { SAMPLES } from "./samples.mjs";

const $ = (id) => document.getElementById(id);
const form = $("input-form");
const resultInput = $("result");
const sampleSelect = $("sample");
let current = null; // the last offload: lro.offload()'s answer

const pretty = (value) => JSON.stringify(value, null, 2);
const number = (n) => n.toLocaleString("en-US");

function setStatus(element, text, kind = "") {
  element.textContent = text;
  element.dataset.kind = kind;
}

// ---- Input ------------------------------------------------------------------------------

for (const sample of SAMPLES) sampleSelect.add(new Option(sample.label, sample.id));
sampleSelect.add(new Option("Your own result (paste or drop)", "own"));

function showSize() {
  const text = resultInput.value;
  $("result-size").textContent = text ? `${number(text.length)} characters, ~${number(lro.tokens(text))} tokens as text` : "";
}

function loadSample(id) {
  const sample = SAMPLES.find((s) => s.id === id);
  if (!sample) return false;
  resultInput.value = sample.text();
  $("operation").value = sample.operation;
  $("detail").value = sample.detail;
  $("threshold").value = String(sample.threshold);
  return true;
}

sampleSelect.addEventListener("change", () => {
  if (loadSample(sampleSelect.value)) {
    showSize();
    offload();
  } else {
    resultInput.focus();
  }
});

resultInput.addEventListener("input", () => {
  sampleSelect.value = "own";
  showSize();
});

async function takeFile(file) {
  if (!file) return;
  resultInput.value = await file.text();
  sampleSelect.value = "own";
  // A file's name usually says what produced it: `read_graph.json` -> read_graph.
  const stem = file.name.replace(/\.[^.]*$/, "").replace(/[^A-Za-z0-9_.-]+/g, "_");
  if (stem) $("operation").value = stem;
  showSize();
  offload();
}

$("file").addEventListener("change", (event) => takeFile(event.target.files[0]));
resultInput.addEventListener("dragover", (event) => {
  event.preventDefault();
  resultInput.classList.add("dropping");
});
resultInput.addEventListener("dragleave", () => resultInput.classList.remove("dropping"));
resultInput.addEventListener("drop", (event) => {
  event.preventDefault();
  resultInput.classList.remove("dropping");
  takeFile(event.dataTransfer.files[0]);
});

// ---- The offload ------------------------------------------------------------------------

function options() {
  return {
    operation: $("operation").value.trim(),
    detail: $("detail").value,
    threshold: Number($("threshold").value),
    profile: $("profile").value,
  };
}

function offload() {
  const status = $("status");
  $("offloaded").hidden = true;
  $("inline").hidden = true;
  $("query-panel").hidden = true;
  current = null;
  if (!resultInput.value.trim()) {
    setStatus(status, "Paste a tool result, or pick a sample.");
    return;
  }
  try {
    current = lro.offload(resultInput.value, options());
  } catch (err) {
    setStatus(status, `Error ${lro.describeError(err)}`, "error");
    return;
  }
  if (current.offloaded) showDescriptor(current);
  else showInline(current);
}

function showInline({ outcome, tokens }) {
  setStatus(
    $("status"),
    `Inline: ~${number(tokens)} tokens is within the threshold of ${number(options().threshold)}, so the agent gets the result itself.`,
    "inline",
  );
  $("inline-result").textContent = pretty(outcome.results);
  $("inline").hidden = false;
}

function showDescriptor({ outcome, descriptor, costs, filePath, fileBytes }) {
  const { summary } = descriptor;
  const saved = costs.inline - costs[options().profile];
  setStatus(
    $("status"),
    `Offloaded: ${number(summary.count)} records (~${number(costs.inline)} tokens) went to a file; the ${options().profile} descriptor costs ~${number(costs[options().profile])} tokens, ${Math.round((100 * saved) / Math.max(1, costs.inline))}% less.`,
    "offloaded",
  );
  for (const cell of document.querySelectorAll("[data-cost]")) {
    const name = cell.dataset.cost;
    cell.textContent = `~${number(costs[name])}`;
    cell.classList.toggle("chosen", name === options().profile);
  }

  const facts = [
    ["operation", summary.operation],
    ["records", number(summary.count)],
    ["estimated tokens", number(summary.estimated_tokens)],
    ["detail", summary.detail],
    ["top namespaces", summary.top_namespaces.join(", ") || "none"],
  ];
  if (summary.score_range) facts.push(["score range", summary.score_range.join(" to ")]);
  for (const s of descriptor.sections ?? []) {
    if (s.name) facts.push([`section ${s.name}`, `lines ${s.first_line}-${s.first_line + s.count - 1} (${s.count})`]);
    if (s.tree) facts.push(["tree", `one record per node of "${s.tree.key}", with ${s.tree.path_field} and ${s.tree.depth_field}`]);
  }
  $("summary").replaceChildren(
    ...facts.flatMap(([term, value]) => {
      const dt = document.createElement("dt");
      dt.textContent = term;
      const dd = document.createElement("dd");
      dd.textContent = value;
      return [dt, dd];
    }),
  );

  $("file-path").textContent = filePath;
  const download = $("download");
  if (download.href) URL.revokeObjectURL(download.href);
  download.href = URL.createObjectURL(new Blob([fileBytes()], { type: "application/jsonl" }));
  download.download = filePath.split("/").pop();

  $("recipes").replaceChildren(...descriptor.jq_recipes.map(recipeItem));
  $("guidance").textContent = descriptor.guidance;
  $("schema").textContent = pretty(descriptor.line_schema);
  $("descriptor-profile").textContent = options().profile;
  $("descriptor").textContent = pretty(outcome);

  // Named sections (a graph's entities and relations) can be queried one at a time; a
  // tree's single section has no name.
  const sections = (descriptor.sections ?? []).filter((s) => s.name);
  const sectionSelect = $("section");
  sectionSelect.replaceChildren(...sections.map((s) => new Option(`${s.name} (${s.count})`, s.name)));
  $("section-field").hidden = sections.length === 0;

  $("offloaded").hidden = false;
  $("query-panel").hidden = false;
  setStatus($("results-status"), "");
  $("results-body").textContent = "";
  $("results-jq").hidden = true;
}

function recipeItem(recipe, index) {
  const item = document.createElement("li");
  const button = document.createElement("button");
  button.type = "button";
  button.className = "recipe";
  button.dataset.recipe = String(index + 1);
  button.textContent = `Run ${index + 1}: ${recipe.description}`;
  button.addEventListener("click", () => runRecipe(index + 1, recipe.description));
  const command = document.createElement("code");
  command.textContent = recipe.command;
  item.append(button, command);
  return item;
}

// ---- Extraction ---------------------------------------------------------------------------

function showResults(what, run) {
  const status = $("results-status");
  const body = $("results-body");
  const jqLine = $("results-jq");
  let response;
  try {
    response = run();
  } catch (err) {
    setStatus(status, `${what}: error ${lro.describeError(err)}`, "error");
    body.textContent = "";
    jqLine.hidden = true;
    $("results").scrollIntoView({ block: "nearest" });
    return;
  }
  const cut = response.truncated ? ` (cut: ${response.hint ?? response.limit})` : "";
  setStatus(
    status,
    `${what}: ${number(response.count)} result${response.count === 1 ? "" : "s"} from ${number(response.records_read)} records${cut}`,
    response.truncated ? "inline" : "offloaded",
  );
  // One result (an aggregate, a count table) pretty; several one per line, as `jq -c`.
  const indent = response.results.length === 1 ? 2 : 0;
  body.textContent = response.results.map((r) => (typeof r === "string" ? r : JSON.stringify(r, null, indent))).join("\n");
  jqLine.hidden = !response.jq;
  jqLine.querySelector("code").textContent = response.jq ?? "";
  $("results").scrollIntoView({ block: "nearest" });
}

/** The section the query panel names, when the file has sections. */
function section() {
  return $("section-field").hidden ? {} : { section: $("section").value };
}

function runRecipe(number, description) {
  if (!current?.offloaded) return;
  const text = $("params").value.trim();
  showResults(`Recipe ${number} (${description})`, () => {
    const params = text ? JSON.parse(text) : undefined;
    return current.extract(params ? { recipe: number, params } : { recipe: number });
  });
}

$("jq-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (!current?.offloaded) return;
  const query = $("jq").value.trim();
  if (!query) return;
  showResults("Filter", () => current.extract({ query, ...section() }));
});

// A request when every key is a request key; otherwise the document is the filter itself.
const REQUEST_KEYS = new Set(["where", "fields", "sort", "skip", "limit", "count", "groupBy", "group_by", "distinct", "stats", "section"]);

$("where-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (!current?.offloaded) return;
  const text = $("where").value.trim();
  if (!text) return;
  showResults("Query", () => {
    let doc;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw new Error(`the query is not JSON: ${err.message}`);
    }
    const isRequest = doc && typeof doc === "object" && !Array.isArray(doc) && Object.keys(doc).every((k) => REQUEST_KEYS.has(k));
    return current.extract({ ...section(), ...(isRequest ? doc : { where: doc }) });
  });
});

form.addEventListener("submit", (event) => {
  event.preventDefault();
  offload();
});
for (const id of ["detail", "threshold", "profile"]) $(id).addEventListener("change", offload);

// ---- Start ----------------------------------------------------------------------------------

try {
  await lro.load();
} catch (err) {
  setStatus($("status"), `Could not load the WebAssembly module: ${lro.describeError(err)}`, "error");
  throw err;
}
loadSample(SAMPLES[0].id);
showSize();
offload();
performance.mark("lro-playground-ready");
document.documentElement.dataset.ready = "true";
