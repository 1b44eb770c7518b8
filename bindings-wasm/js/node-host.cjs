// An `LroHost` over node:fs: real files for the wasm-bindgen build under Node.
//
// It does what the core's native StdHost does, so files and descriptors match the native
// build: an exclusive temp name, then a hard link (never replacing) for atomic writes, 0600
// files and 0700 directories, symlinks reported (not followed) when listing.
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

// Errors by which a filesystem says it has no hard links.
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

// Gives the complete file `tmp` the name `path`, never replacing a file there, as the core's
// StdHost does: a hard link fails when the name exists (a rename would replace it), so two
// writers can never overwrite each other. Without hard links, a rename after a check.
function publish(tmp, path) {
  try {
    fs.linkSync(tmp, path);
  } catch (err) {
    if (err.code === "EEXIST") throw alreadyExists(path);
    if (!NO_LINKS.has(err.code)) throw err;
    if (fs.existsSync(path)) throw alreadyExists(path);
    fs.renameSync(tmp, path);
  }
}

/** @returns {import("./index").LroHost} */
function nodeHost() {
  return {
    writeAtomic(path, bytes) {
      const tmp = `${path.replace(/\.jsonl$/, "")}.jsonl.tmp-${crypto.randomBytes(8).readBigUInt64LE()}`;
      try {
        fs.writeFileSync(tmp, bytes, { flag: "wx", mode: 0o600 });
        publish(tmp, path);
      } finally {
        // Once published, the temp name is only a second name of the file.
        fs.rmSync(tmp, { force: true });
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
    fileSize(path) {
      return fs.statSync(path).size;
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
