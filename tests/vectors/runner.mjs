// How a JavaScript build runs one conformance vector, as README.md here says (the
// normalisation of mcp/tests/vectors.rs), in any JS environment: Node (the Node addon's
// suite, bindings-node/__test__/vectors.test.mjs, over the addon and the WebAssembly
// package; the component under jco, bindings-wasm/tests/vectors.test.mjs) and a browser page
// or Web Worker (bindings-wasm/tests/browser/run-vectors.mjs). Nothing here imports node:
// the environment brings its files and the build its `call`.
//
// `call(vector, config, dir)` -> { outcome, file? }, or throws an error whose `code` is the
// core's code; `config` is the vector's, snake_case, with `output_dir` in place. `files` is
// { makeDir() -> a fresh empty directory's canonical path, writeFile(path, text),
// readText(path), list(dir) -> names, removeDir(dir) }.

// 26 Crockford base32 characters (no I, L, O, U) not preceded by a letter or digit.
const ULID = /(?<![A-Za-z0-9])[0-9A-HJKMNP-TV-Z]{26}(?![0-9A-HJKMNP-TV-Z])/g;

/** The outcome with the run's directory, ULIDs, warnings and ages made comparable. */
export function normalise(value, dir) {
  if (typeof value === "string") return value.split(dir).join("{dir}").replace(ULID, "{ulid}");
  if (Array.isArray(value)) return value.map((v) => normalise(v, dir));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        if (k === "warning" && typeof v === "string") return [k, "{warning}"];
        if (k === "age_seconds" && typeof v === "number") return [k, 0];
        return [k, normalise(v, dir)];
      }),
    );
  }
  return value;
}

/** `resources` vectors: every ISO 8601 UTC timestamp in a string. */
function normaliseTimestamps(value) {
  if (typeof value === "string") return value.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "{timestamp}");
  if (Array.isArray(value)) return value.map(normaliseTimestamps);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normaliseTimestamps(v)]));
  }
  return value;
}

const normaliseHeader = (line) => line.replace(/("timestamp":")[^"]*"/, '$1{timestamp}"');

const camel = (key) => key.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const snake = (key) => key.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());

/** Keys whose values are data, not options: free-form arguments and parameters, a
 * structured query's filter document, sort and fields, keyed by the records' field names, and
 * the per-tool rules, keyed by tool patterns (their own keys are one word each). */
const DATA_KEYS = new Set(["arguments", "params", "where", "sort", "fields", "tools"]);

/** An options object (and the objects in it) with its keys renamed by `rename`; data (see
 * `DATA_KEYS`) is left as it is. The vectors are written with the core's snake_case keys;
 * the JS API's are camelCase. */
export function renameKeys(value, rename) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [rename(k), DATA_KEYS.has(k) ? v : renameKeys(v, rename)]),
  );
}

/** The file an outcome names, when it offloaded. */
export function fileOf(outcome) {
  if (outcome?.offloaded === true) return outcome.file_path;
  return outcome?.response?.file_path;
}

/** The file an extract vector reads: the one it wrote, or `extract_path` (`{dir}` replaced). */
export function extractPath(vector, offloaded, dir) {
  if (offloaded?.offloaded !== true) throw new Error("an extract vector must offload first");
  return typeof vector.extract_path === "string" ? vector.extract_path.split("{dir}").join(dir) : offloaded.file_path;
}

/**
 * The `call` of a build with the JS API (`lro`: the Node addon, or the WebAssembly package),
 * every call given `host` in its config when one is given (a browser's files in memory).
 * Functions may return Promises or values.
 */
export function apiCall(lro, { host } = {}) {
  return async function call(vector, config, dir) {
    const jsConfig = { ...renameKeys(config, camel), ...(host ? { host } : {}) };
    const request = renameKeys(vector.request ?? null, camel);
    const input = vector.input;
    switch (vector.call) {
      case "config_toml":
        return { outcome: renameKeys(await lro.configFromTomlString(input), snake) };
      case "config_env":
        return { outcome: renameKeys(await lro.configFromEnv(input), snake) };
      case "offload":
      case "offload_json": {
        const offload = vector.call === "offload" ? lro.offload : lro.offloadJson;
        const outcome = await offload(input, request, jsConfig);
        return { outcome, file: fileOf(outcome) };
      }
      case "offload_inject": {
        const outcome = await lro.offloadInject(input.formatted, input.pre_budget, request, jsConfig);
        return { outcome, file: fileOf(outcome) };
      }
      case "intercept": {
        const outcome = await lro.interceptToolResult(input.result, renameKeys(input.context, camel), jsConfig);
        return { outcome, file: fileOf(outcome) };
      }
      case "cleanup":
        return { outcome: await lro.cleanup(jsConfig) };
      case "extract": {
        const offloaded = await lro.offload(input, request, jsConfig);
        const target = extractPath(vector, offloaded, dir);
        return { outcome: await lro.extract(target, renameKeys(vector.extract, camel), jsConfig), file: offloaded.file_path };
      }
      case "resources":
        return resources(lro, vector, request, jsConfig);
      case "handles":
        return handles(lro, vector, request, jsConfig, dir);
      default:
        throw new Error(`unknown call ${vector.call}`);
    }
  };
}

async function resources(lro, vector, request, jsConfig) {
  const offloaded = await lro.offload(vector.input, request, jsConfig);
  if (offloaded?.offloaded !== true) throw new Error("a resources vector must offload first");
  const file = offloaded.file_path.split("/").at(-1);
  const op = Object.fromEntries(
    Object.entries(vector.resources).map(([k, v]) => [k, typeof v === "string" ? v.split("{file}").join(file) : v]),
  );
  switch (op.method) {
    case "list":
      return { outcome: await lro.listResources(op.cursor ?? null, jsConfig) };
    case "read":
      return { outcome: await lro.readResource(op.uri, jsConfig) };
    case "templates":
      return { outcome: { resourceTemplates: lro.resourceScheme().templates } };
    case "extract":
      return { outcome: await lro.extract(op.uri, renameKeys(op.extract, camel), jsConfig) };
    default:
      throw new Error(`unknown resources method ${op.method}`);
  }
}

/** `value` with each placeholder (`{uri}`, ...) replaced in every string. */
function placed(value, placeholders) {
  if (typeof value === "string") {
    return Object.entries(placeholders).reduce((s, [from, to]) => s.split(from).join(to), value);
  }
  if (Array.isArray(value)) return value.map((v) => placed(v, placeholders));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, placed(v, placeholders)]));
  }
  return value;
}

/** `handles` vectors: the arguments resolved against the file the vector offloaded, as
 * `{ arguments }` (as given when they hold no handle) or `{ error, path }`. */
async function handles(lro, vector, request, jsConfig, dir) {
  const offloaded = await lro.offload(vector.input, request, jsConfig);
  if (offloaded?.offloaded !== true) throw new Error("a handles vector must offload first");
  const written = offloaded.file_path;
  const uri = lro.resourceScheme().uriPrefix + written.split("/").at(-1);
  const args = placed(vector.handles.arguments, { "{uri}": uri, "{path}": written, "{dir}": dir });
  const resolved = await lro.resolveToolCall(args, jsConfig);
  if (resolved === null) return { outcome: { arguments: args } };
  if (resolved.result !== undefined) {
    if (resolved.result.isError !== true) throw new Error("a failed handle must answer isError");
    return { outcome: { error: resolved.code, path: resolved.argument } };
  }
  return { outcome: { arguments: resolved.arguments } };
}

/**
 * What a build must produce for `vector`: its `expect`, or, in a build without the BPE
 * tokenizers (`tokenizers` false: the wasm builds), its `expect_no_tokenizer` when it has one.
 */
export function expected(vector, tokenizers) {
  return !tokenizers && vector.expect_no_tokenizer ? vector.expect_no_tokenizer : vector.expect;
}

/**
 * Runs `vector` in a fresh directory: what it produced, shaped as `expect` (`outcome`,
 * `jsonl`, `remaining`, or `error`; the vector's own by default, see `expected`), for a deep
 * equality with it. An error other than the core's coded ones, or a coded one where none is
 * expected, is thrown.
 */
export async function produce(vector, call, files, expect = vector.expect) {
  const dir = files.makeDir();
  try {
    for (const [name, content] of Object.entries(vector.setup?.files ?? {})) {
      files.writeFile(`${dir}/${name}`, content);
    }
    const config = { ...(vector.config ?? {}) };
    config.output_dir = typeof config.output_dir === "string" ? config.output_dir.split("{dir}").join(dir) : dir;
    let run;
    try {
      run = await call(vector, config, dir);
    } catch (err) {
      if (typeof err?.code !== "string" || !("error" in expect)) throw err;
      return { error: err.code };
    }
    const produced = {};
    const outcome = vector.call === "resources" ? normaliseTimestamps(run.outcome) : run.outcome;
    produced.outcome = normalise(outcome, dir);
    // The file is compared when the vector expects its lines, byte for byte: the raw text
    // split exactly as the native runner's `lines()` does.
    if (run.file && "jsonl" in expect) {
      const lines = files.readText(run.file).split("\n");
      if (lines.at(-1) === "") lines.pop();
      produced.jsonl = lines.map((l, i) => (i === 0 ? normaliseHeader(l) : l));
    }
    if (vector.call === "cleanup") produced.remaining = files.list(dir).sort();
    return produced;
  } finally {
    files.removeDir(dir);
  }
}
