// Types of lro/mcp (hand-written: this module is JavaScript, not generated from Rust).
import type { Config } from './index'

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
 * descriptor. The core's names and descriptions. */
export declare function registerLroExtract(server: { registerTool: (...args: any[]) => any }, config?: Config): unknown

/** The `lro_extract` tool's description. */
export declare const EXTRACT_DESCRIPTION: string
