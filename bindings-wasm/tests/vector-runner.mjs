// How a WebAssembly build runs one conformance vector, as tests/vectors/README.md says (the
// normalisation of core/tests/vectors.rs), in any JS environment: Node (vectors.test.mjs)
// and a browser page or Web Worker (browser/run-vectors.mjs). Nothing here imports node:
// the environment brings its files (`files` below) and the build its `call`.
//
// `call(vector, config, dir)` -> { outcome, file? }, or throws an error whose `code` is the
// core's code. `files` is { makeDir() -> a fresh empty directory's canonical path,
// writeFile(path, text), readText(path), list(dir) -> names, removeDir(dir) }.

// 26 Crockford base32 characters (no I, L, O, U) not preceded by a letter or digit.
const ULID = /(?<![A-Za-z0-9])[0-9A-HJKMNP-TV-Z]{26}/g;

/** The outcome with the run's directory, ULIDs, warnings and ages made comparable. */
export function normalise(value, dir) {
  if (typeof value === "string") return value.replaceAll(dir, "{dir}").replace(ULID, "{ulid}");
  if (Array.isArray(value)) return value.map((v) => normalise(v, dir));
  if (value && typeof value === "object") {
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

const normaliseHeader = (line) => line.replace(/("timestamp":")[^"]*"/, '$1{timestamp}"');

// `resources` vectors pin the MCP resources of the native builds (the proxy and the Python
// and Node MCP helpers); the WebAssembly builds export no resource functions.
const NOT_EXPORTED = { resources: "MCP resources are served by the native builds" };

/** Why a WebAssembly build skips `vector`, or false: every runner skips the same ones. */
export function skipReason(vector) {
  return NOT_EXPORTED[vector.call] ?? false;
}

/** The file an outcome names, when it offloaded. */
export function fileOf(outcome) {
  if (outcome?.offloaded === true) return outcome.file_path;
  return outcome?.response?.file_path;
}

/** The file an extract vector reads: the one it wrote, or `extract_path` (`{dir}` replaced). */
export function extractPath(vector, offloaded, dir) {
  if (offloaded?.offloaded !== true) throw new Error("an extract vector must offload first");
  return typeof vector.extract_path === "string" ? vector.extract_path.replaceAll("{dir}", dir) : offloaded.file_path;
}

/** The `call` of the wasm-bindgen package (`pkg`: its exports), each engine on `makeHost()`. */
export function bindgenCall(pkg, makeHost) {
  const { Lro, configFromToml, configFromEnv } = pkg;
  return async function call(vector, config, dir) {
    const { input, request } = vector;
    switch (vector.call) {
      case "config_toml":
        return { outcome: configFromToml(input) };
      case "config_env":
        return { outcome: configFromEnv(input) };
    }
    const lro = new Lro(config, makeHost());
    let outcome;
    switch (vector.call) {
      case "offload":
        outcome = lro.offload(input, request);
        break;
      case "offload_json":
        outcome = lro.offloadJson(input, request);
        break;
      case "offload_inject":
        outcome = lro.offloadInject(input.formatted, input.pre_budget, request);
        break;
      case "intercept":
        outcome = lro.interceptToolResult(input.result, input.context);
        break;
      case "cleanup":
        return { outcome: lro.cleanup() };
      case "extract": {
        const offloaded = lro.offload(input, request);
        return { outcome: lro.extract(extractPath(vector, offloaded, dir), vector.extract) };
      }
      default:
        throw new Error(`unknown call ${vector.call}`);
    }
    return { outcome, file: fileOf(outcome) };
  };
}

/**
 * Runs `vector` in a fresh directory: what it produced, shaped as its `expect` (`outcome`,
 * `jsonl`, `remaining`, or `error`), for a deep equality with it.
 */
export async function produce(vector, call, files) {
  const dir = files.makeDir();
  try {
    for (const [name, content] of Object.entries(vector.setup?.files ?? {})) {
      files.writeFile(`${dir}/${name}`, content);
    }
    const config = { ...(vector.config ?? {}) };
    config.output_dir = typeof config.output_dir === "string" ? config.output_dir.replaceAll("{dir}", dir) : dir;
    const produced = {};
    let run;
    try {
      run = await call(vector, config, dir);
    } catch (err) {
      if (typeof err?.code !== "string") throw err;
      return { error: err.code };
    }
    produced.outcome = normalise(run.outcome, dir);
    if (run.file) {
      // Byte for byte: split the raw text exactly as the native runner's `lines()` does.
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
