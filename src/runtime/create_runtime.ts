/**
 * The embeddable engine: config, tool sources behind the in-process MCP
 * execution service, the executor, the stream store, the prompter and the
 * clock, wired into turns. The CLI uses exactly this; an embedding
 * application brings its own provider (model client) and, if it likes, its
 * own tools, store, prompter and terminal.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import type { BlobStore } from "../blobs/blob_store.ts";
import { FileBlobStore } from "../blobs/file_blob_store.ts";
import { join, resolve } from "node:path";
import { loadConfig } from "../config/load_config.ts";
import type { SpillwayConfig } from "../config/spillway_config.ts";
import { unknownToolWarnings } from "../config/unknown_tool_warnings.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { Prompter } from "../machines/prompter.ts";
import { runTurn } from "../machines/run_turn.ts";
import type { Clock, NoticeSink } from "../machines/turn_dependencies.ts";
import type { TurnOutput } from "../machines/turn_machine.ts";
import type { TurnObserver } from "../machines/turn_observer.ts";
import type {
  AssistantMessage,
  Provider,
  ProviderRequest,
  ToolSpec,
} from "../provider/provider.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import { formatNotice } from "../review/notice.ts";
import type { BuiltinTool } from "../service/builtin/builtin_tool.ts";
import { ExecutionService } from "../service/execution_service.ts";
import type { BarrierKind } from "../service/executor.ts";
import { McpExecutor } from "../service/mcp_executor.ts";
import type { ToolSource } from "../service/tool_source.ts";
import { FileStreamStore } from "../stream/file_stream_store.ts";
import { newConversationId } from "../stream/new_conversation_id.ts";
import { providerView } from "../stream/provider_view.ts";
import { repairInterruptedTurn } from "../stream/repair_interrupted_turn.ts";
import type { StreamStore } from "../stream/stream_store.ts";
import { cachedPolicies, refuseToolsNeedingPerson } from "./tool_policies.ts";
import { withImagePayloads } from "./image_payloads.ts";
import { outputOptions } from "./output_options.ts";
import { blobDirectory, spillFromConfig } from "./spill_from_config.ts";
import { toolSourcesFromConfig } from "./tool_sources_from_config.ts";
import { currentDirectory } from "../platform/processes.ts";

/** The workspace used when none is given: `.spillway` in the current directory. */
export const DEFAULT_WORKSPACE = ".spillway";

/** A model client: a {@linkcode Provider} or just its `complete` function. */
export type ProviderLike = Provider | ((request: ProviderRequest) => Promise<AssistantMessage>);

/** Options of {@linkcode createRuntime}. */
export interface RuntimeOptions {
  /** The model client. Required. */
  readonly provider: ProviderLike;
  /** Where conversations (and the workspace `config.toml`) live. Default `.spillway`. */
  readonly workspace?: string;
  /** The configuration. Default: `loadConfig({ workspace })` (user and workspace files). */
  readonly config?: SpillwayConfig;
  /** Builtin tools registered in code, beside `fs_list_files` and `fs_read_file`. Default none. */
  readonly tools?: readonly BuiltinTool[];
  /**
   * More tool sources behind the execution service, beside the builtin,
   * local and upstream ones the configuration describes (e.g. an
   * application's own MCP bridge, or a scripted source in tests). Their tools
   * are offered under their own names, with the `'*'` defaults unless the
   * configuration has an entry for them; the runtime closes them on
   * `close()`. Default none.
   */
  readonly toolSources?: readonly ToolSource[];
  /** The stream store. Default: files under `<workspace>/conversations`. */
  readonly store?: StreamStore;
  /**
   * Where spilled outputs and the payloads of non-text blocks are kept.
   * Default: files under `<workspace>/blobs`.
   */
  readonly blobs?: BlobStore;
  /** Asks a person under `ask`/`edit`. Default: none (such tools then fail at start). */
  readonly prompter?: Prompter;
  /** Prints cap notices. Default: one line on stderr per notice. */
  readonly noticeSink?: NoticeSink;
  /** Watches turns (terminal rendering). Default: none. */
  readonly observer?: TurnObserver;
  /** Timestamps events. Default: the system clock. */
  readonly clock?: Clock;
  /** Root of the builtin file tools and local commands. Default: the current directory. */
  readonly cwd?: string;
  /**
   * Receives warnings a person should see (a configured tool no source
   * provides, a torn stream line skipped on load, an upstream server started
   * again after it exited). Default: stderr.
   */
  readonly warn?: (message: string) => void;
  /**
   * Where upstream MCP servers' stderr goes: `"inherit"`, `"null"`, or a
   * function receiving its text (the CLI makes it safe for the terminal).
   * Default `"inherit"`.
   */
  readonly upstreamStderr?: "inherit" | "null" | ((text: string) => void);
}

/**
 * An XState inspection event (`@xstate.actor`, `@xstate.event`,
 * `@xstate.snapshot`, `@xstate.action`, `@xstate.microstep`); cast it to
 * XState's `InspectionEvent` for the details.
 */
export interface InspectionEventLike {
  /** The kind of inspection event, e.g. `"@xstate.snapshot"`. */
  readonly type: string;
}

/** Options of one {@linkcode Runtime.query}. */
export interface QueryOptions {
  /** Continue this conversation. Default: a new one. */
  readonly conversationId?: string;
  /** Cancels the turn: running calls get their `cancellation_response`. */
  readonly signal?: AbortSignal;
  /** Receives XState inspection events of the turn's machines (`--inspect FILE`). */
  readonly inspect?: (event: InspectionEventLike) => void;
}

/** What one turn did, and where it was written. */
export interface QueryResult extends TurnOutput {
  /** The conversation the turn was recorded in. */
  readonly conversationId: string;
  /** Where the stream lives (a file path for the file store). */
  readonly location: string;
}

/** A running engine. Close it when done: it owns tool processes and servers. */
export interface Runtime {
  /** The configuration in force. */
  readonly config: SpillwayConfig;
  /** The tools the model is offered. */
  readonly tools: readonly ToolSpec[];
  /** Runs one turn for `prompt`. */
  query(prompt: string, options?: QueryOptions): Promise<QueryResult>;
  /** Stops tool sources, servers and the executor. Idempotent. */
  close(): Promise<void>;
}

/** The default sinks print outside text (tool names, messages): made safe, one line each. */
const printLine = (line: string) => console.error(sanitizeForTerminal(line, { singleLine: true }));

const stderrNotices: NoticeSink = {
  notice: (fact) => printLine(formatNotice(fact)),
};

/**
 * Creates the engine: starts the execution service and connects the executor.
 *
 * @throws {SpillwayError} `config_invalid` for a bad config; `terminal_required`
 *   when a tool asks (`ask`/`edit`) and no prompter was given
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRuntime } from "./create_runtime.ts";
 * import { parseConfig } from "../config/parse_config.ts";
 * const runtime = await createRuntime({
 *   workspace: await Deno.makeTempDir(),
 *   config: parseConfig(""),
 *   provider: () => Promise.resolve({ text: "hello", toolCalls: [] }),
 * });
 * const turn = await runtime.query("hi");
 * assert.equal(turn.text, "hello");
 * await runtime.close();
 * ```
 */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const workspace = resolve(options.workspace ?? DEFAULT_WORKSPACE);
  const cwd = resolve(options.cwd ?? currentDirectory());
  const config = options.config ?? await loadConfig({ workspace });
  const given: Provider = typeof options.provider === "function"
    ? { complete: options.provider }
    : options.provider;
  const policyFor = cachedPolicies(config);
  const barrierFor = (tool: string): BarrierKind => {
    const result = policyFor(tool).result;
    return result === "ask" || result === "edit" ? "review" : "record";
  };
  const warn = options.warn ?? ((message: string) => printLine(`warning: ${message}`));
  // Payloads of non-text blocks are kept here under the digests the stream records.
  const payloads = options.blobs ?? new FileBlobStore(blobDirectory(workspace));
  const provider = given.sendsImages === true ? withImagePayloads(given, payloads, warn) : given;
  const spilling = spillFromConfig(config, payloads);
  const plan = toolSourcesFromConfig(config, {
    cwd,
    warn,
    tools: [...(options.tools ?? []), ...(spilling?.tools ?? [])],
    ...(options.upstreamStderr === undefined ? {} : { upstreamStderr: options.upstreamStderr }),
  });
  const service = new ExecutionService({
    sources: [...plan.sources, ...(options.toolSources ?? [])],
    toolNames: plan.routes,
    barrierFor,
    ...(spilling === undefined ? {} : { spill: spilling.spill }),
    output: outputOptions(workspace, policyFor),
    payloads,
  });
  let executor: McpExecutor | undefined;
  try {
    await service.start();
    executor = await McpExecutor.connect(service);
  } catch (error) {
    await service.close();
    throw error;
  }
  const tools: ToolSpec[] = service.list().map((tool) => ({
    name: tool.name,
    description: config.tool(tool.name).description() ?? tool.description,
    inputSchema: tool.inputSchema,
  }));
  // A misspelled entry would apply to nothing: say so at start, then run.
  for (const warning of unknownToolWarnings(config, { tools: tools.map((tool) => tool.name) })) {
    warn(warning);
  }
  const prompter = options.prompter ?? refusingPrompter;
  if (options.prompter === undefined) {
    try {
      refuseToolsNeedingPerson(tools.map((tool) => tool.name), config, policyFor);
    } catch (error) {
      await executor.close();
      await service.close();
      throw error;
    }
  }
  const store = options.store ?? new FileStreamStore(join(workspace, "conversations"));
  const clock = options.clock ?? { now: () => new Date() };
  const noticeSink = options.noticeSink ?? stderrNotices;
  const connected = executor;
  let closed: Promise<void> | undefined;

  return {
    config,
    tools,
    async query(prompt, queryOptions = {}) {
      if (closed !== undefined) throw new TypeError("the runtime is closed");
      const conversationId = queryOptions.conversationId ??
        newConversationId(() => clock.now());
      const stream = await store.open(conversationId);
      try {
        // A turn a crash cut short is made whole first (and the person told).
        const loaded = await repairInterruptedTurn(stream, { at: clock.now().toISOString() });
        for (const warning of loaded.warnings) {
          warn(warning);
          getLogger(["spillway", "stream"]).warn(warning);
        }
        const output = await runTurn(
          {
            turnId: `${conversationId}/${
              loaded.events.filter((e) => e.type === "turn_start").length + 1
            }`,
            prompt,
            provider,
            tools,
            stream,
            executor: connected,
            prompter,
            policyFor,
            noticeSink,
            clock,
            history: providerView(loaded.events),
            ...(options.observer === undefined ? {} : { observer: options.observer }),
            ...(queryOptions.signal === undefined ? {} : { signal: queryOptions.signal }),
          },
          queryOptions.inspect === undefined ? {} : { inspect: queryOptions.inspect },
        );
        return { ...output, conversationId, location: stream.location };
      } finally {
        await stream.close();
      }
    },
    close() {
      closed ??= (async () => {
        await connected.close();
        await service.close();
      })();
      return closed;
    },
  };
}

/** Stands in when no prompter was given; start-up refuses tools that would reach it. */
const refusingPrompter: Prompter = {
  ask: () => Promise.reject(new SpillwayError("terminal_required", "no prompter configured")),
  edit: () => Promise.reject(new SpillwayError("terminal_required", "no prompter configured")),
};
