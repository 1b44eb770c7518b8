// The vector runner in a module Web Worker: one message `{ names, vectorsUrl }` in, one
// `{ scope, results }` (or `{ error }`) out.
import { runVectors } from "./run-vectors.mjs";

self.onmessage = async ({ data }) => {
  try {
    self.postMessage(await runVectors(data.names, data.vectorsUrl));
  } catch (err) {
    self.postMessage({ error: String(err?.stack ?? err) });
  }
};
