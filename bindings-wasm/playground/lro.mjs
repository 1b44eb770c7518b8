// Everything the playground asks of the wasm-bindgen package, in one module: when the
// package's JS API changes, this file changes and the page does not.
//
// Files go to the package's built-in in-memory store (a browser has no files, and the page
// gives no `host`): each run first removes the files of the runs before, so the store holds
// one run's files at a time.
import init, {
  cleanup,
  estimateTokens,
  extract,
  offload as offloadRecords,
  offloadJson,
  readResource,
  resourceLink,
} from "../js/pkg/web/lro_wasm.js";

export const PROFILES = ["full", "compact", "pointer"];

/** Loads and compiles the WebAssembly module (once). */
let loading;
export function load() {
  loading ??= init();
  return loading;
}

/** An error of the core (`code` set, e.g. `invalid_detail`) or of the page, as one line. */
export function describeError(err) {
  return err?.code ? `${err.code}: ${err.message}` : String(err?.message ?? err);
}

function isJson(text) {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs LRO on a tool result `text` (JSON, or any text a tool returns: Python repr, CSV,
 * JSON lines, a log) with `{ operation, detail, threshold, profile }`, as a server would
 * before answering a tool call. Returns
 * - `{ offloaded: false, outcome, tokens }`: the result stays inline (`tokens`: its cost), or
 * - `{ offloaded: true, outcome, descriptor, costs, filePath, fileBytes() }`: `outcome` is
 *   the descriptor in the chosen profile (what the agent receives), `descriptor` the full one
 *   (schema, recipes with commands), `costs` the tokens of the inline result and of each
 *   profile's descriptor, side by side.
 * Throws the core's errors (`err.code`).
 */
export function offload(text, { operation, detail, threshold, profile }) {
  const config = { thresholdTokens: threshold };
  cleanup({ ttlSeconds: 0 });
  const request = { operation, descriptor: profile };
  if (detail) request.detail = detail;
  // JSON text goes in as text (exact numbers, no JS round trip); anything else as a string,
  // which the core reads by its shape.
  const json = isJson(text);
  const run = (req) => (json ? offloadJson(text, req, config) : offloadRecords(text, req, config));
  const outcome = run(request);
  if (!outcome.offloaded) {
    return { offloaded: false, outcome, tokens: estimateTokens(JSON.stringify(outcome.results)) };
  }
  // The other profiles describe the same records; each offload writes its own file.
  const costs = { inline: 0 };
  const byProfile = {};
  for (const name of PROFILES) {
    byProfile[name] = name === profile ? outcome : run({ ...request, descriptor: name });
    // Compact JSON, as an MCP client receives it.
    costs[name] = estimateTokens(JSON.stringify(byProfile[name]));
  }
  const descriptor = byProfile.full;
  costs.inline = descriptor.summary.estimated_tokens;
  return {
    offloaded: true,
    outcome,
    descriptor,
    costs,
    filePath: outcome.file_path,
    /** The offload file's bytes (a JSONL header line, then one record per line). */
    fileBytes: () => new TextEncoder().encode(readResource(resourceLink(outcome.file_path).uri).contents[0].text),
    /**
     * Native extraction on the file (`lro_extract`): `{ recipe, params }`, `{ query }` (a jq
     * filter), or a structured query (`where`, `fields`, `sort`, `skip`, `limit`, `count`,
     * `groupBy`, `distinct`, `stats`), each with an optional `section`.
     */
    extract: (request) => extract(outcome.file_path, request),
  };
}

/** Estimated tokens of `text`, as LRO counts them. */
export function tokens(text) {
  return estimateTokens(text);
}
