/**
 * What a `spillway serve` gateway is started with: its configuration and
 * workspace, and the defaults of what tests and the CLI put in their place
 * (the stores, the prompter, the notice and warning sinks).
 *
 * @module
 */

import type { InspectionEvent } from "xstate";
import type { SpillwayConfig } from "../config/spillway_config.ts";
import type { Prompter } from "../machines/prompter.ts";
import type { NoticeSink } from "../machines/turn_dependencies.ts";
import type { BlobStore } from "../blobs/blob_store.ts";
import type { BuiltinTool } from "../service/builtin/builtin_tool.ts";
import type { ByteSize } from "../size/byte_size.ts";
import type { StreamStore } from "../stream/stream_store.ts";

/**
 * How often a parked call whose client sent a progress token gets a
 * keep-alive progress notification: 15 s, well inside the 60 s request
 * timeout of the MCP SDK's clients (which reset it on progress when asked).
 */
export const PARK_PROGRESS_INTERVAL_MS = 15_000;

/** Options of {@linkcode Gateway.start}. */
export interface GatewayOptions {
  /** The configuration (tools, thresholds, upstream servers). */
  readonly config: SpillwayConfig;
  /** Where conversations are recorded: `<workspace>/conversations`. */
  readonly workspace: string;
  /** Root of the builtin file tools and local commands. Default: the current directory. */
  readonly cwd?: string;
  /**
   * The client ceiling of every session (`--client-ceiling`). Each session
   * also gets its client's own ceiling (`session_ceiling.ts`), with
   * `[serve.client_ceilings]` over the known ones. Default: none.
   */
  readonly clientCeiling?: ByteSize | undefined;
  /** Asks a person under `ask`/`edit`. Default: none (such tools are refused at start). */
  readonly prompter?: Prompter | undefined;
  /** Prints notices. Default: one line on stderr each. */
  readonly noticeSink?: NoticeSink;
  /** The stream store. Default: files under `<workspace>/conversations`. */
  readonly store?: StreamStore;
  /** Where spilled outputs are kept. Default: files under `<workspace>/blobs`. */
  readonly blobs?: BlobStore;
  /**
   * Builtin tools registered in code. Default: none. The file tools
   * (`fs_list_files`, `fs_read_file`) are served only when the configuration
   * has an entry for them.
   */
  readonly tools?: readonly BuiltinTool[];
  /** Where upstream servers' stderr goes (`"inherit"`, `"null"`, or a text sink). Default `"inherit"`. */
  readonly upstreamStderr?: "inherit" | "null" | ((text: string) => void);
  /** Receives what a person should know (an upstream server started again). Default: the log. */
  readonly warn?: (message: string) => void;
  /** See {@linkcode PARK_PROGRESS_INTERVAL_MS}. Default: that constant. */
  readonly parkProgressIntervalMs?: number;
  /**
   * The receiver of one session's XState inspection events (its phases), per
   * session id (`serve --inspect FILE`). Default: none.
   */
  readonly inspect?: (session: string) => (event: InspectionEvent) => void;
  /**
   * The clients the gateway tells apart by their tokens (`default`, and each
   * `[serve.tokens.NAME]`). Each has its own connection to every upstream
   * server, stopped when its last session ends. With more than one, each
   * conversation records its client and each notice names it. Default: the
   * default client alone.
   */
  readonly clients?: readonly string[];
}
