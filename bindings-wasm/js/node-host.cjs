// An `LroHost` over node:fs: real files for the wasm-bindgen build under Node.
//
// It does what the core's native StdHost does, so files and descriptors match the native
// build: exclusive temp name + rename for atomic writes, 0600 files and 0700 directories,
// never overwriting an existing offload file, symlinks reported (not followed) when listing.
"use strict";

const fs = require("node:fs");
const os = require("node:os");
const crypto = require("node:crypto");

function kindOf(stat) {
  if (stat.isSymbolicLink()) return "symlink";
  if (stat.isFile()) return "file";
  if (stat.isDirectory()) return "dir";
  return "other";
}

function alreadyExists(path) {
  const err = new Error(`offload file already exists: ${path}`);
  err.code = "EEXIST";
  return err;
}

/** @returns {import("./lro_wasm").LroHost} */
function nodeHost() {
  return {
    writeAtomic(path, bytes) {
      const tmp = `${path.replace(/\.jsonl$/, "")}.jsonl.tmp-${crypto.randomBytes(8).readBigUInt64LE()}`;
      try {
        fs.writeFileSync(tmp, bytes, { flag: "wx", mode: 0o600 });
        if (fs.existsSync(path)) throw alreadyExists(path);
        fs.renameSync(tmp, path);
      } catch (err) {
        fs.rmSync(tmp, { force: true });
        throw err;
      }
    },
    createDirAll(dir) {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    },
    readFile(path) {
      return fs.readFileSync(path);
    },
    listDir(dir) {
      return fs.readdirSync(dir, { withFileTypes: true }).map((d) => ({ name: d.name, kind: kindOf(d) }));
    },
    removeFile(path) {
      fs.unlinkSync(path);
    },
    canonicalize(path) {
      return fs.realpathSync.native(path);
    },
    entryKind(path) {
      return kindOf(fs.lstatSync(path));
    },
    nowMillis() {
      return Date.now();
    },
    fillRandom(buf) {
      crypto.randomFillSync(buf);
    },
    tempDir() {
      return os.tmpdir();
    },
  };
}

module.exports = { nodeHost };
