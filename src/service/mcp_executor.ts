/**
 * The runtime's real executor: an MCP `Client` linked to the execution
 * service over an in-memory transport. It runs each call through the same
 * `tools/call` path external callers use, and reaches the service over that
 * one connection only: the tools it knows are the ones `tools/list` gives
 * (listed again when the service says they changed), and the rest goes over
 * the executor channel of `executor_channel.ts` (the service tells it a
 * call parked; it cancels and acknowledges calls). On release it checks
 * that what its caller received is what was recorded (rule 1 of
 * docs/architecture.md: recorded and delivered are one decision).
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import type { ToolCall } from "../review/tool_call.ts";
import { type ChannelEnd, ExecutorCall } from "./_executor_call.ts";
import type { ExecutionService } from "./execution_service.ts";
import {
  CHANNEL_CAPABILITY,
  CHANNEL_METHODS,
  type ChannelAcknowledgement,
  ParkedParamsSchema,
  speaksChannel,
} from "./executor_channel.ts";
import type { Acknowledgement, ExecutionHandle, Executor } from "./executor.ts";
import { Client, InMemoryTransport, type Transport } from "./sdk.ts";

/** Options of {@linkcode McpExecutor.connect}. */
export interface McpExecutorOptions {
  /**
   * Makes the two ends of the link between the executor's MCP client and
   * the service: `[client side, server side]`. Any pair that carries
   * messages in order serves (a pair over a worker's `MessagePort`, or one
   * wrapped to watch the traffic). Default: `InMemoryTransport.createLinkedPair`.
   */
  readonly link?: () => [Transport, Transport];
}

const log = getLogger(["spillway", "executor"]);

/**
 * Runs calls through the execution service as an MCP client.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExecutionService } from "./execution_service.ts";
 * import { McpExecutor } from "./mcp_executor.ts";
 * import { BuiltinToolSource } from "./builtin/builtin_tool_source.ts";
 * const source = new BuiltinToolSource({ cwd: ".", tools: [] }).register({
 *   name: "hello",
 *   description: "Say hello.",
 *   inputSchema: { type: "object" },
 *   run: () => Promise.resolve("hello"),
 * });
 * const service = new ExecutionService({ sources: [source], barrierFor: () => "record" });
 * await service.start();
 * const executor = await McpExecutor.connect(service);
 * const handle = executor.start(
 *   { id: "call_1", name: "hello", arguments: {} },
 *   { signal: new AbortController().signal },
 * );
 * const outcome = await handle.outcome;
 * assert.equal(outcome.kind, "executed");
 * const recorded = { id: "call_1", content: "hello", isError: false };
 * assert.deepEqual(await handle.release({ kind: "deliver" }, recorded), {
 *   kind: "delivered",
 *   response: recorded,
 * });
 * await executor.close();
 * await service.close();
 * ```
 */
export class McpExecutor implements Executor {
  readonly #client: Client;
  /** The tools the service listed. */
  #tools: ReadonlySet<string> = new Set();
  /** The calls waiting for their `parked` notification, by call id. */
  readonly #waiting = new Map<string, ExecutorCall>();
  /** The acknowledgements of this tick, sent together at its end. */
  #acknowledgements: ChannelAcknowledgement[] = [];

  private constructor(client: Client) {
    this.#client = client;
  }

  /**
   * Links a new MCP client to `service` (which must be started).
   *
   * @param service the started execution service
   * @param options how the client reaches the service; see {@linkcode McpExecutorOptions}
   * @throws {TypeError} when the service is not started, or does not speak the executor channel
   */
  static async connect(
    service: ExecutionService,
    options: McpExecutorOptions = {},
  ): Promise<McpExecutor> {
    const link = options.link ?? (() => InMemoryTransport.createLinkedPair());
    const [clientTransport, serverTransport] = link();
    await service.connect(serverTransport);
    const client = new Client(
      { name: "spillway-executor", version: "0.1.0" },
      { capabilities: CHANNEL_CAPABILITY },
    );
    const executor = new McpExecutor(client);
    client.setNotificationHandler(
      CHANNEL_METHODS.parked,
      { params: ParkedParamsSchema },
      (params) => {
        for (const [callId, outcome] of params.parked) {
          executor.#waiting.get(callId)?.parked(
            outcome,
          );
        }
      },
    );
    client.setNotificationHandler("notifications/tools/list_changed", () => executor.#list());
    await client.connect(clientTransport);
    if (!speaksChannel(client.getServerCapabilities())) {
      await client.close();
      throw new TypeError("the execution service does not speak the executor channel");
    }
    await executor.#list();
    return executor;
  }

  /** Whether the service lists a tool of that name. */
  has(tool: string): boolean {
    return this.#tools.has(tool);
  }

  /**
   * Sends `tools/call` with `spillway/callId` = `call.id`. The handle's
   * outcome settles when the service says the call parked. When `signal`
   * aborts, the service cancels the call (it still parks, as `cancelled`,
   * so the Host records the cancellation and releases it like any other).
   */
  start(call: ToolCall, options: { readonly signal: AbortSignal }): ExecutionHandle {
    const started = new ExecutorCall(this.#client, this.#channel, call, options.signal);
    // A second call of an id in flight is refused by the service: it never parks.
    if (!this.#waiting.has(call.id)) this.#waiting.set(call.id, started);
    return started;
  }

  /** Closes the client and its transport (not the service). */
  async close(): Promise<void> {
    await this.#client.close();
  }

  async #list(): Promise<void> {
    try {
      const { tools } = await this.#client.listTools();
      this.#tools = new Set(tools.map((tool) => tool.name));
    } catch (error) {
      log.warn("the execution service's tools could not be listed: {error}", { error });
    }
  }

  /** The executor's end of the channel, as its calls use it. */
  readonly #channel: ChannelEnd = {
    cancel: (callId, reason) => this.#send(CHANNEL_METHODS.cancel, { callId, reason }),
    forget: (callId) => this.#send(CHANNEL_METHODS.forget, { callId }),
    acknowledge: (callId: string, ack: Acknowledgement) => {
      this.#acknowledgements.push([callId, ack]);
      if (this.#acknowledgements.length === 1) queueMicrotask(this.#sendAcknowledgements);
    },
    done: (callId, call) => {
      if (this.#waiting.get(callId) === call) this.#waiting.delete(callId);
    },
  };

  /** Every acknowledgement made in one tick goes as one message (a commit releases its batch at once). */
  readonly #sendAcknowledgements = (): void => {
    const acknowledgements = this.#acknowledgements;
    this.#acknowledgements = [];
    this.#send(CHANNEL_METHODS.acknowledge, { acknowledgements });
  };

  #send(method: string, params: Record<string, unknown>): void {
    // A failed send fails the calls' requests too (the connection is gone): they settle that way.
    this.#client.notification({ method, params }).catch((error) =>
      log.warn("the executor could not send {method}: {error}", { method, error })
    );
  }
}
