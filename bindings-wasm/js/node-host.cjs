// An `LroHost` over node:fs: real files for the wasm-bindgen build under Node.
//
// It does what the core's native StdHost does, so files and descriptors match the native
// build: an exclusive temp name, then a hard link (never replacing) for atomic writes, 0600
// files and 0700 directories, symlinks reported (not followed) when listing, offload files
// opened without following a link or waiting on a FIFO and checked on the opened descriptor,
// and a default directory private to the user.
"use strict";

const fs = require("node:fs");
const os = require("node:os");
const crypto = require("node:crypto");
const nodePath = require("node:path");

// What StdHost's checked open refuses, thrown with a code the binding turns into path_denied.
function refused(message) {
  return Object.assign(new Error(message), { code: "LRO_REFUSED" });
}

function euid() {
  return typeof process.geteuid === "function" ? process.geteuid() : null;
}

// The offload file `name` in `dir`, read through one descriptor checked after opening: no final
// symlink followed (ELOOP), no wait on a FIFO (O_NONBLOCK), a regular file with one link owned
// by this user. Node has no openat: `dir` is opened by path, as the core resolved it.
function openChecked(dir, name) {
  if (!name || name === "." || name === ".." || name.includes("/")) throw refused(`${JSON.stringify(name)} is not a file name`);
  const { O_RDONLY, O_NOFOLLOW = 0, O_NONBLOCK = 0, O_NOCTTY = 0 } = fs.constants;
  const fd = fs.openSync(nodePath.join(dir, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw refused("not a regular file");
    if (stat.nlink !== 1) throw refused(`${stat.nlink} hard links, where an offload file has exactly one`);
    const me = euid();
    if (me !== null && stat.uid !== me) throw refused(`owned by uid ${stat.uid}, not by this user (uid ${me})`);
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

// Why others can change the entries of `dir` (StdHost's rule), or null.
function sharedDir(dir) {
  const stat = fs.statSync(dir);
  const me = euid();
  if (me === null) return null;
  const mode = stat.mode & 0o7777;
  if (stat.uid !== me && stat.uid !== 0) return `it is owned by another user (uid ${stat.uid}; this user is uid ${me})`;
  const othersWrite = (mode & 0o022) !== 0;
  const stickyOurs = (mode & 0o1000) !== 0 && stat.uid === me;
  if (othersWrite && !stickyOurs) return `other users can write it (mode ${mode.toString(8).padStart(4, "0")}, owner uid ${stat.uid})`;
  return null;
}

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
    openFile(dir, name) {
      return openChecked(dir, name);
    },
    sharedDir(dir) {
      return sharedDir(dir);
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
      const me = euid();
      return nodePath.join(os.tmpdir(), me === null ? "lro" : `lro-${me}`);
    },
  };
}

module.exports = { nodeHost };
