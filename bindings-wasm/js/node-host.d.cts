import type { LroHost } from "./index";

/** An `LroHost` over node:fs (atomic 0600 files, 0700 directories), as the native build writes
 *  them: the default host of calls under Node; give it explicitly to a build for the web. */
export declare function nodeHost(): LroHost;
