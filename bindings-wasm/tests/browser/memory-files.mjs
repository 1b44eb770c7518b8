// Files for a browser, which has none: a directory tree in memory, seen two ways. `host()`
// is an `LroHost` for a call's `config.host`, so the wasm-bindgen package reads and writes
// through JS exactly as it does over node:fs; the other methods are the vector runner's
// `files` (tests/vectors/runner.mjs). Failures are Errors with the errno `code` node:fs would give
// (`ENOENT`, `ENOTDIR`, `EEXIST`, `EISDIR`), which is how the core tells "not found" from
// other failures, so the vectors that need a failing directory fail here as they do on disk.

function errno(code, syscall, path) {
  const err = new Error(`${code}: ${syscall} '${path}'`);
  err.code = code;
  return err;
}

/** `path` absolute, with `.`, `..` and repeated slashes resolved (no symbolic links here). */
function normalize(path) {
  const parts = [];
  for (const part of String(path).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

const parentOf = (path) => path.slice(0, path.lastIndexOf("/")) || "/";
const nameOf = (path) => path.slice(path.lastIndexOf("/") + 1);

export class MemoryFiles {
  /** path -> { kind: "dir" } | { kind: "file", bytes: Uint8Array } */
  #entries = new Map([["/", { kind: "dir" }]]);
  #made = 0;

  #entry(path, syscall) {
    const entry = this.#entries.get(path);
    if (entry) return entry;
    // ENOTDIR when a file stands where a directory of the path should be, as a kernel says.
    for (let dir = parentOf(path); dir !== "/"; dir = parentOf(dir)) {
      if (this.#entries.get(dir)?.kind === "file") throw errno("ENOTDIR", syscall, path);
    }
    throw errno("ENOENT", syscall, path);
  }

  /** Creates `dir` and its missing parents, as `mkdir -p`. */
  mkdirAll(dir) {
    const path = normalize(dir);
    let at = "";
    for (const part of path.split("/").slice(1)) {
      if (part === "") break;
      at += `/${part}`;
      const entry = this.#entries.get(at);
      if (!entry) this.#entries.set(at, { kind: "dir" });
      else if (entry.kind !== "dir") throw errno(at === path ? "EEXIST" : "ENOTDIR", "mkdir", path);
    }
  }

  /** Writes `content` (text or bytes) to `file`; `exclusive` fails with EEXIST if it exists. */
  writeFile(file, content, { exclusive = false } = {}) {
    const path = normalize(file);
    const parent = this.#entry(parentOf(path), "open");
    if (parent.kind !== "dir") throw errno("ENOTDIR", "open", path);
    const existing = this.#entries.get(path);
    if (existing?.kind === "dir") throw errno("EISDIR", "open", path);
    if (existing && exclusive) throw errno("EEXIST", "open", path);
    const bytes = typeof content === "string" ? new TextEncoder().encode(content) : new Uint8Array(content);
    this.#entries.set(path, { kind: "file", bytes });
  }

  /** The bytes of `file`. */
  readFile(file) {
    const path = normalize(file);
    const entry = this.#entry(path, "open");
    if (entry.kind !== "file") throw errno("EISDIR", "read", path);
    return entry.bytes;
  }

  /** The text of `file`, which must be UTF-8. */
  readText(file) {
    return new TextDecoder("utf-8", { fatal: true }).decode(this.readFile(file));
  }

  /** The entries of `dir`, unsorted: `[{ name, kind }]`. */
  entries(dir) {
    const path = normalize(dir);
    if (this.#entry(path, "scandir").kind !== "dir") throw errno("ENOTDIR", "scandir", path);
    const found = [];
    for (const [p, entry] of this.#entries) {
      if (p !== "/" && parentOf(p) === path) found.push({ name: nameOf(p), kind: entry.kind });
    }
    return found;
  }

  /** The names in `dir`. */
  list(dir) {
    return this.entries(dir).map((e) => e.name);
  }

  /** Removes the file `file` (never a directory, as unlink). */
  removeFile(file) {
    const path = normalize(file);
    if (this.#entry(path, "unlink").kind !== "file") throw errno("EISDIR", "unlink", path);
    this.#entries.delete(path);
  }

  /** Removes `dir` and everything under it; nothing when it is absent. */
  removeDir(dir) {
    const path = normalize(dir);
    for (const p of [...this.#entries.keys()]) {
      if (p === path || p.startsWith(`${path}/`)) this.#entries.delete(p);
    }
  }

  /** A fresh empty directory under /tmp; its path is canonical (there are no links here). */
  makeDir(prefix = "lro-wasm-vec-") {
    this.mkdirAll("/tmp");
    const dir = `/tmp/${prefix}${++this.#made}`;
    this.removeDir(dir);
    this.mkdirAll(dir);
    return dir;
  }

  /** An `LroHost` over these files, with the page's clock and `crypto.getRandomValues`. */
  host() {
    return {
      writeAtomic: (path, bytes) => this.writeFile(path, bytes, { exclusive: true }),
      createDirAll: (dir) => this.mkdirAll(dir),
      readFile: (path) => this.readFile(path),
      listDir: (dir) => this.entries(dir),
      removeFile: (path) => this.removeFile(path),
      canonicalize: (path) => {
        const canonical = normalize(path);
        this.#entry(canonical, "realpath");
        return canonical;
      },
      entryKind: (path) => this.#entry(normalize(path), "lstat").kind,
      fileSize: (path) => this.readFile(path).length,
      nowMillis: () => Date.now(),
      fillRandom: (buf) => crypto.getRandomValues(buf),
      tempDir: () => "/tmp",
    };
  }
}
