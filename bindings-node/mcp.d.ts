// Types of lro/mcp (hand-written: this module is JavaScript, not generated from Rust).
import type { CleanupReport, Config, ResourceScheme } from './index'

/** An LRO config for the MCP helpers. Used as given when it holds a configuration value;
 * without one (omitted, or only `onEvent` / `outputSchemaDeclared`), `withLro` and
 * `registerLroExtract` use the defaults, native guidance and the `ATLATL_PROMPT__OFFLOAD__*`
 * environment on top, read when they are called. */
export interface McpLroConfig extends Config {
  /** The tool declared an `outputSchema`: its results pass through untouched (a descriptor
   * would violate the schema). */
  outputSchemaDeclared?: boolean
}

/**
 * Wraps an MCP SDK tool handler so that results above the threshold are offloaded to JSONL
 * and the client gets the descriptor. Guidance defaults to `native` (it names `lro_extract`).
 * Configuration as `McpLroConfig` says; a bad variable throws `invalid_config` from `withLro`.
 */
export declare function withLro<H extends (...args: any[]) => any>(toolName: string, handler: H, config?: McpLroConfig): H

/** Registers the `lro_extract` tool on an `McpServer`: `file_path` and a structured query (`where`,
 * `fields`, `sort`, `skip`, `limit`, `count`, `group_by`, `distinct`, `stats`), or `recipe` with
 * `params`, `query`, `lines`, `search`; `section` scopes it; `describe: true` returns the full
 * descriptor; `save: true` keeps the output as a new offload file. The core's names and
 * descriptions. From then on the server's `tools/call` resolves result handles
 * (`{ $lro: resource_uri, ... }` arguments) before the tool runs; a bad one is answered as an
 * `isError` result and the tool is not called. */
export declare function registerLroExtract(server: { registerTool: (...args: any[]) => any }, config?: Config): unknown

/** The `lro_extract` tool's description. */
/** The extract tool's name for `server`: `config.mcp.extractToolName`, else
 * `lro_extract_<server name>` (the McpServer's name), else `lro_extract`. */
export declare function extractToolName(server: { server?: any }, config?: Config): string

/** The extract tool's description in the default (short) form. */
export declare const EXTRACT_DESCRIPTION: string

/** What `registerLroResources` returns. */
export interface LroResources {
  /** Removes expired offload files; a client that listed resources hears the list changed. */
  cleanup(): Promise<CleanupReport>
}

/**
 * Serves the offload files as MCP resources on an `McpServer`: `lro://offloads/{file}` and
 * `lro://offloads/{file}/records`, listed in pages (newest first, the server's own resources on
 * the first page) and read; `notifications/resources/list_changed` after an offload by a
 * `withLro` tool given the same `config` object, once the client has listed resources.
 */
export declare function registerLroResources(server: { registerResource: (...args: any[]) => any; server: any; sendResourceListChanged(): void }, config?: Config): LroResources

/** The offload files' URI prefix, media type and resource templates. */
export declare const RESOURCE_SCHEME: ResourceScheme
