import type { LroHost } from "./pkg/node/lro_wasm";

/** An `LroHost` over node:fs (atomic 0600 files, 0700 directories), as the native build writes them. */
export declare function nodeHost(): LroHost;
