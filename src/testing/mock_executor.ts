/**
 * A `MockExecutor` for tests and embedders' tests: canned results per tool
 * name instead of the MCP execution service, with the service's delivery
 * semantics. A call is parked until released; `deliver` hands over the
 * canned content, `replace` the acknowledged content, `fail` an error; and
 * what was delivered is checked against what was recorded, exactly as the
 * real executor does. So a turn with a `MockExecutor` goes through the same
 * phase end and commit as one with the real service.
 *
 * @module
 */

import type { ToolCall } from "../review/tool_call.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import { checkDelivery } from "../service/check_delivery.ts";
import type {
  Acknowledgement,
  DeliveryOutcome,
  ExecutionHandle,
  ExecutionOutcome,
  Executor,
} from "../service/executor.ts";
import { reasonText } from "../errors/reason_text.ts";
import { CallToolResultSchema } from "../service/sdk.ts";
import { replacementResult } from "../service/source_call.ts";
import { toToolCallResponse } from "../service/to_tool_call_response.ts";
import type { ToolResult } from "../service/tool_source.ts";
import { toolResultOf } from "../service/tool_result_of.ts";

/**
 * A canned result: text content, a text response, an MCP result (checked
 * and typed as the service does: images and other blocks included), or a
 * simulated loss or failure.
 */
export type MockResult =
  | string
  | { readonly content: string; readonly isError?: boolean }
  | { readonly mcp: ToolResult }
  | { readonly lost: string }
  | { readonly failed: string };

/**
 * What a mock tool does: a canned result, or a function computing one. A
 * function that never settles simulates a hang (the call ends `cancelled`
 * when its signal aborts); one that throws yields an error response, as a
 * throwing MCP tool handler does.
 */
export type MockBehavior =
  | MockResult
  | ((call: ToolCall, signal: AbortSignal) => MockResult | Promise<MockResult>);

/** A mock tool with options. */
export interface MockTool {
  /** What the tool does. */
  readonly result: MockBehavior;
  /** Milliseconds before the result is parked. Default `0` (no timer at all). */
  readonly delayMs?: number;
  /**
   * Changes what `deliver` hands over, to simulate a service that delivers
   * something other than what was recorded. Default: the parked content.
   */
  readonly tamper?: (content: string) => string;
}

/** One release, as the mock saw it. */
export interface MockRelease {
  /** The call that was released. */
  readonly call: ToolCall;
  /** The Host's acknowledgement. */
  readonly ack: Acknowledgement;
  /** What the Host said it recorded. */
  readonly recorded: ToolCallResponse | undefined;
  /** What the caller received. */
  readonly delivery: DeliveryOutcome;
}

interface CallRecord {
  readonly call: ToolCall;
  readonly tool: MockTool | undefined;
  parked: ToolCallResponse | undefined;
  released: boolean;
}

function isMockTool(entry: MockBehavior | MockTool): entry is MockTool {
  return typeof entry === "object" && "result" in entry;
}

function cancelled(signal: AbortSignal): ExecutionOutcome {
  return { kind: "cancelled", reason: reasonText(signal.reason ?? "cancelled") };
}

/**
 * Runs tool calls against canned results.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MockExecutor } from "./mock_executor.ts";
 * const executor = new MockExecutor({ echo: (call) => JSON.stringify(call.arguments) });
 * const handle = executor.start(
 *   { id: "c1", name: "echo", arguments: { a: 1 } },
 *   { signal: new AbortController().signal },
 * );
 * const outcome = await handle.outcome;
 * assert.equal(outcome.kind, "executed");
 * const recorded = { id: "c1", content: '{"a":1}', isError: false };
 * const delivery = await handle.release({ kind: "deliver" }, recorded);
 * assert.deepEqual(delivery, { kind: "delivered", response: recorded });
 * ```
 */
export class MockExecutor implements Executor {
  /** Every call started, in start order. */
  readonly started: ToolCall[] = [];
  /** Every release, in release order. */
  readonly releases: MockRelease[] = [];
  readonly #tools: ReadonlyMap<string, MockTool>;

  /**
   * Creates an executor that knows exactly the tools given.
   *
   * @param tools the mock tools by name: a behavior, or a {@linkcode MockTool} with options
   */
  constructor(tools: Readonly<Record<string, MockBehavior | MockTool>>) {
    this.#tools = new Map(
      Object.entries(tools).map((
        [name, entry],
      ) => [name, isMockTool(entry) ? entry : { result: entry }]),
    );
  }

  /** Whether a mock tool of that name exists. */
  has(tool: string): boolean {
    return this.#tools.has(tool);
  }

  /** The delivery of call `id`, once released. */
  deliveryOf(id: string): DeliveryOutcome | undefined {
    return this.releases.find((release) => release.call.id === id)?.delivery;
  }

  /** Starts a call: its result is parked once the canned behavior settles. */
  start(call: ToolCall, options: { readonly signal: AbortSignal }): ExecutionHandle {
    this.started.push(call);
    const record: CallRecord = {
      call,
      tool: this.#tools.get(call.name),
      parked: undefined,
      released: false,
    };
    const outcome = this.#run(record, options.signal);
    return {
      outcome,
      release: (ack, recorded) => Promise.resolve(this.#release(record, ack, recorded)),
    };
  }

  async #run(record: CallRecord, signal: AbortSignal): Promise<ExecutionOutcome> {
    const { call, tool } = record;
    if (tool === undefined) return { kind: "failed", reason: `tool ${call.name} is not available` };
    if (signal.aborted) return cancelled(signal);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<ExecutionOutcome>((resolve) => {
      onAbort = () => resolve(cancelled(signal));
      signal.addEventListener("abort", onAbort, { once: true });
    });
    const work = (async (): Promise<ExecutionOutcome> => {
      const delayMs = tool.delayMs ?? 0;
      if (delayMs > 0) await new Promise((resolve) => timer = setTimeout(resolve, delayMs));
      const behavior = tool.result;
      let result: MockResult;
      try {
        result = typeof behavior === "function" ? await behavior(call, signal) : behavior;
      } catch (error) {
        result = { content: reasonText(error), isError: true };
      }
      return this.#outcomeOf(record, result);
    })();
    try {
      return await Promise.race([work, aborted]);
    } finally {
      clearTimeout(timer);
      if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
    }
  }

  #outcomeOf(record: CallRecord, result: MockResult): ExecutionOutcome {
    if (typeof result === "string") {
      return this.#park(record, { id: record.call.id, content: result, isError: false });
    }
    if ("lost" in result) return { kind: "lost", reason: result.lost };
    if ("failed" in result) return { kind: "failed", reason: result.failed };
    if ("mcp" in result) {
      const parsed = CallToolResultSchema.safeParse(result.mcp);
      if (!parsed.success) return { kind: "failed", reason: `malformed result: ${parsed.error}` };
      return this.#park(
        record,
        toToolCallResponse(record.call.id, toolResultOf(parsed.data), { parked: true }),
      );
    }
    const response: ToolCallResponse = {
      id: record.call.id,
      content: result.content,
      isError: result.isError ?? false,
    };
    return this.#park(record, response);
  }

  #park(record: CallRecord, response: ToolCallResponse): ExecutionOutcome {
    record.parked = response;
    return { kind: "executed", response };
  }

  #release(
    record: CallRecord,
    ack: Acknowledgement,
    recorded: ToolCallResponse | undefined,
  ): DeliveryOutcome {
    const delivery = this.#deliver(record, ack, recorded);
    this.releases.push({ call: record.call, ack, recorded, delivery });
    return delivery;
  }

  #deliver(
    record: CallRecord,
    ack: Acknowledgement,
    recorded: ToolCallResponse | undefined,
  ): DeliveryOutcome {
    if (record.released) {
      return { kind: "failed", message: `call ${record.call.id} was already released` };
    }
    record.released = true;
    if (ack.kind === "fail") return { kind: "failed", message: ack.message };
    let received: ToolCallResponse;
    if (ack.kind === "replace") {
      // Also how a call that ended before parking (lost, cancelled) gets its synthesized response.
      received = toToolCallResponse(record.call.id, replacementResult(ack));
    } else if (record.parked === undefined) {
      return { kind: "failed", message: `call ${record.call.id} has no parked result to deliver` };
    } else {
      const tamper = record.tool?.tamper;
      received = tamper === undefined
        ? record.parked
        : { ...record.parked, content: tamper(record.parked.content) };
    }
    return checkDelivery(ack, recorded, received);
  }
}
