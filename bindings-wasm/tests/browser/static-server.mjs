// A static file server on loopback for the browser tests and `make playground`: GET and HEAD
// of files under a few mounted directories, with the MIME types a browser insists on for
// module scripts and `WebAssembly.instantiateStreaming`. No listings, nothing outside the
// mounts (no `..`, no symbolic link out), nothing but 127.0.0.1.
//
//   node tests/browser/static-server.mjs [PORT]     serves the playground, then waits
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const wasmDir = path.resolve(here, "../..");

/** URL prefix -> directory: the playground, the package's web build, the tests, the vectors. */
export const MOUNTS = {
  "/playground/": path.join(wasmDir, "playground"),
  "/js/pkg/web/": path.join(wasmDir, "js/pkg/web"),
  "/tests/": path.join(wasmDir, "tests"),
  "/vectors/": path.resolve(wasmDir, "../tests/vectors"),
};

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".txt": "text/plain; charset=utf-8",
};

/** The file a URL path names inside a mount, or null. */
function resolve(urlPath, mounts) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes("\0")) return null;
  for (const [prefix, dir] of Object.entries(mounts)) {
    if (!decoded.startsWith(prefix)) continue;
    let file = path.resolve(dir, `.${decoded.slice(prefix.length - 1)}`);
    if (decoded.endsWith("/")) file = path.join(file, "index.html");
    try {
      const real = fs.realpathSync(file);
      const root = fs.realpathSync(dir);
      if (!real.startsWith(root + path.sep) || !fs.statSync(real).isFile()) return null;
      return real;
    } catch {
      return null;
    }
  }
  return null;
}

/** Starts the server on 127.0.0.1 (`port` 0: any free one); resolves to { server, origin }. */
export function serve({ port = 0, mounts = MOUNTS } = {}) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    // The root, and a mount named without its slash, go to the directory's index.
    const index = url.pathname === "/" ? "/playground/" : Object.keys(mounts).find((m) => m === `${url.pathname}/`);
    if (index) {
      res.writeHead(302, { location: index }).end();
      return;
    }
    const file = req.method === "GET" || req.method === "HEAD" ? resolve(url.pathname, mounts) : null;
    if (!file) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    const type = TYPES[path.extname(file)] ?? "application/octet-stream";
    // no-cache: a rebuilt module or an edited page is what the next load gets.
    res.writeHead(200, { "content-type": type, "content-length": fs.statSync(file).size, "cache-control": "no-cache" });
    if (req.method === "HEAD") res.end();
    else fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      resolvePromise({ server, origin: `http://127.0.0.1:${server.address().port}` });
    });
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const port = Number(process.argv[2] ?? 8765);
  const { origin } = await serve({ port });
  console.log(`LRO playground: ${origin}/playground/  (Ctrl-C stops it)`);
}
