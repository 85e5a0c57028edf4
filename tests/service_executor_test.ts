/**
 * The runtime's McpExecutor against the execution service: outcomes for
 * every route (executed, lost, cancelled, failed), and the delivery check
 * that compares what the caller received with what was recorded.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { ToolCallResponse } from "../src/review/tool_call_response.ts";
import { CALL_ID_META_KEY, ExecutionService } from "../src/service/execution_service.ts";
import type { BarrierKind } from "../src/service/executor.ts";
import { McpExecutor } from "../src/service/mcp_executor.ts";
import {
  type CallToolResult,
  InMemoryTransport,
  type JSONRPCMessage,
  type Transport,
  type TransportSendOptions,
} from "../src/service/sdk.ts";
import { ToolLostError } from "../src/service/tool_source.ts";
import { FakeToolSource, text, untilAborted } from "../src/testing/fake_tool_source.ts";

type Tamper = (callId: string, result: CallToolResult) => CallToolResult;

/**
 * The server end of the executor's link, rewriting on its way out the
 * result of each `tools/call` (found by the `spillway/callId` its request
 * carried): a delivery that differs from what the service decided, as a
 * broken transport or a meddling relay would produce.
 */
class TamperingTransport implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];
  readonly #inner: Transport;
  readonly #tamper: Tamper;
  /** JSON-RPC request id → spillway call id, for the calls in flight. */
  readonly #callIds = new Map<string | number, string>();

  constructor(inner: Transport, tamper: Tamper) {
    this.#inner = inner;
    this.#tamper = tamper;
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      if ("method" in message && message.method === "tools/call" && "id" in message) {
        const callId = message.params?._meta?.[CALL_ID_META_KEY];
        if (typeof callId === "string") this.#callIds.set(message.id, callId);
      }
      this.onmessage?.(message, extra);
    };
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ("result" in message) {
      const callId = this.#callIds.get(message.id);
      this.#callIds.delete(message.id);
      if (callId !== undefined) {
        const result = this.#tamper(callId, message.result as CallToolResult);
        return this.#inner.send({ ...message, result }, options);
      }
    }
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

interface Fixture extends AsyncDisposable {
  readonly service: ExecutionService;
  readonly executor: McpExecutor;
  readonly source: FakeToolSource;
}

async function fixture(
  options: {
    barrierFor?: (tool: string) => BarrierKind;
    tamper?: Tamper;
  } = {},
): Promise<Fixture> {
  const source = new FakeToolSource("fake", {
    echo: (args) => Promise.resolve(text(String(args.text))),
    big: () => Promise.resolve(text("y".repeat(300_000))),
    lose: () => Promise.reject(new ToolLostError("fake: process exited with signal SIGKILL")),
    hang: (_args, signal) => untilAborted(signal),
    picture: () =>
      Promise.resolve({
        content: [
          { type: "text", text: "the logo:" },
          { type: "image", data: LOGO, mimeType: "image/png" },
        ],
      }),
  });
  const service = new ExecutionService({
    sources: [source],
    barrierFor: options.barrierFor ?? (() => "record"),
  });
  await service.start();
  const { tamper } = options;
  const executor = await McpExecutor.connect(
    service,
    tamper === undefined ? {} : {
      link: () => {
        const [client, server] = InMemoryTransport.createLinkedPair();
        return [client, new TamperingTransport(server, tamper)];
      },
    },
  );
  return {
    service,
    executor,
    source,
    async [Symbol.asyncDispose]() {
      await executor.close();
      await service.close();
    },
  };
}

const live = () => new AbortController().signal;

/** Two 6-byte "images" of the same type and size: only their digests tell them apart. */
const LOGO = btoa("LOGO-1");
const OTHER = btoa("LOGO-2");

function response(id: string, content: string, isError = false): ToolCallResponse {
  return { id, content, isError };
}

Deno.test("McpExecutor: an unattended call released with a replaced review is delivered as recorded", async () => {
  await using f = await fixture();
  const handle = f.executor.start({ id: "call_1", name: "big", arguments: {} }, { signal: live() });
  const outcome = await handle.outcome;
  assert.equal(outcome.kind, "executed");
  assert.equal(outcome.kind === "executed" && outcome.response.content.length, 300_000);
  const recorded = response("call_1", "y".repeat(1000) + "\n... [truncated, 292.9 KB → 1.0 KB]");
  const delivery = await handle.release(
    { kind: "replace", content: recorded.content, isError: false },
    recorded,
  );
  assert.deepEqual(delivery, { kind: "delivered", response: recorded });
});

Deno.test("McpExecutor: an accepted review is delivered with deliver", async () => {
  await using f = await fixture({ barrierFor: () => "review" });
  const handle = f.executor.start(
    { id: "call_1", name: "echo", arguments: { text: "hi" } },
    { signal: live() },
  );
  assert.deepEqual(await handle.outcome, {
    kind: "executed",
    response: response("call_1", "hi"),
  });
  assert.deepEqual(f.source.calls, [{ tool: "echo", args: { text: "hi" } }]);
  const delivery = await handle.release({ kind: "deliver" }, response("call_1", "hi"));
  assert.deepEqual(delivery, { kind: "delivered", response: response("call_1", "hi") });
});

Deno.test("McpExecutor: a deliberately altered delivery is reported as a mismatch", async () => {
  await using f = await fixture({
    tamper: (callId, result) =>
      callId === "call_2" ? { ...result, content: [{ type: "text", text: "tampered" }] } : result,
  });
  const first = f.executor.start(
    { id: "call_1", name: "echo", arguments: { text: "a" } },
    { signal: live() },
  );
  const second = f.executor.start(
    { id: "call_2", name: "echo", arguments: { text: "b" } },
    { signal: live() },
  );
  await Promise.all([first.outcome, second.outcome]);
  assert.deepEqual(await second.release({ kind: "deliver" }, response("call_2", "b")), {
    kind: "mismatch",
    expected: "b",
    received: "tampered",
  });
  assert.equal(
    (await first.release({ kind: "deliver" }, response("call_1", "a"))).kind,
    "delivered",
  );
});

Deno.test("McpExecutor: an image result released with deliver arrives whole and matches its record block by block", async () => {
  await using f = await fixture();
  const handle = f.executor.start({ id: "call_1", name: "picture", arguments: {} }, {
    signal: live(),
  });
  const outcome = await handle.outcome;
  assert.ok(outcome.kind === "executed");
  assert.equal(outcome.response.content, "the logo:\n[image: image/png, 6 B]");
  const delivery = await handle.release({ kind: "deliver" }, outcome.response);
  assert.deepEqual(delivery, { kind: "delivered", response: outcome.response });
});

Deno.test("McpExecutor: a delivered image that differs from the recorded one only in its bytes is a mismatch", async () => {
  await using f = await fixture({
    tamper: (_id, result) => ({
      ...result,
      content: result.content.map((block) =>
        block.type === "image" ? { ...block, data: OTHER } : block
      ),
    }),
  });
  const handle = f.executor.start({ id: "call_1", name: "picture", arguments: {} }, {
    signal: live(),
  });
  const outcome = await handle.outcome;
  assert.ok(outcome.kind === "executed");
  const delivery = await handle.release({ kind: "deliver" }, outcome.response);
  const digest = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;
  assert.deepEqual(delivery, {
    kind: "mismatch",
    expected: `block 2: image image/png 6 bytes ${digest("LOGO-1")}`,
    received: `block 2: image image/png 6 bytes ${digest("LOGO-2")}`,
  });
});

Deno.test("McpExecutor: an image delivered as its placeholder text (same content text) is a mismatch", async () => {
  await using f = await fixture({
    tamper: (_id, result) => ({
      ...result,
      content: result.content.map((block) =>
        block.type === "image" ? { type: "text" as const, text: "[image: image/png, 6 B]" } : block
      ),
    }),
  });
  const handle = f.executor.start({ id: "call_1", name: "picture", arguments: {} }, {
    signal: live(),
  });
  const outcome = await handle.outcome;
  assert.ok(outcome.kind === "executed");
  const delivery = await handle.release({ kind: "deliver" }, outcome.response);
  assert.deepEqual(delivery, {
    kind: "mismatch",
    expected: "blocks: text, image",
    received: "text only",
  });
});

Deno.test("McpExecutor: a delivery whose isError differs from the record is a mismatch", async () => {
  await using f = await fixture({ tamper: (_id, result) => ({ ...result, isError: true }) });
  const handle = f.executor.start(
    { id: "call_1", name: "echo", arguments: { text: "a" } },
    { signal: live() },
  );
  await handle.outcome;
  assert.deepEqual(await handle.release({ kind: "deliver" }, response("call_1", "a")), {
    kind: "mismatch",
    expected: "isError: false",
    received: "isError: true",
  });
});

Deno.test("McpExecutor: a source lost mid-call gives a lost outcome, and release delivers the recorded text", async () => {
  await using f = await fixture();
  const handle = f.executor.start({ id: "call_1", name: "lose", arguments: {} }, {
    signal: live(),
  });
  assert.deepEqual(await handle.outcome, {
    kind: "lost",
    reason: "fake: process exited with signal SIGKILL",
  });
  const recorded = response("call_1", "tool source lost: fake exited", true);
  assert.deepEqual(
    await handle.release({ kind: "replace", content: recorded.content, isError: true }, recorded),
    { kind: "delivered", response: recorded },
  );
});

Deno.test("McpExecutor: aborting a hanging call parks it as cancelled; release delivers the cancellation text", async () => {
  await using f = await fixture();
  const controller = new AbortController();
  const handle = f.executor.start(
    { id: "call_1", name: "hang", arguments: {} },
    { signal: controller.signal },
  );
  await f.source.arrived.reached(1);
  controller.abort("user pressed Ctrl-C");
  assert.deepEqual(await handle.outcome, { kind: "cancelled", reason: "user pressed Ctrl-C" });
  const recorded = response("call_1", "The user cancelled this tool call.", true);
  assert.deepEqual(
    await handle.release({ kind: "replace", content: recorded.content, isError: true }, recorded),
    { kind: "delivered", response: recorded },
  );
});

Deno.test("McpExecutor: a signal aborted before start cancels the call on arrival", async () => {
  await using f = await fixture();
  const handle = f.executor.start(
    { id: "call_1", name: "hang", arguments: {} },
    { signal: AbortSignal.abort("timeout") },
  );
  assert.deepEqual(await handle.outcome, { kind: "cancelled", reason: "timeout" });
  assert.equal(f.source.calls.length, 0);
  const recorded = response("call_1", "cancelled: timeout", true);
  const ack = { kind: "replace", content: recorded.content, isError: true } as const;
  assert.equal((await handle.release(ack, recorded)).kind, "delivered");
});

Deno.test("McpExecutor: a call that never reaches its barrier fails instead of hanging", async () => {
  await using f = await fixture();
  assert.equal(f.executor.has("nope"), false);
  assert.equal(f.executor.has("echo"), true);
  const handle = f.executor.start({ id: "call_1", name: "nope", arguments: {} }, {
    signal: live(),
  });
  assert.deepEqual(await handle.outcome, {
    kind: "failed",
    reason: "call `call_1` did not reach its barrier: unknown tool `nope`",
  });
  const delivery = await handle.release(
    { kind: "replace", content: "unknown tool", isError: true },
    response("call_1", "unknown tool", true),
  );
  assert.deepEqual(delivery, {
    kind: "failed",
    message: "call `call_1` cannot be released: call `call_1` is not parked",
  });
});

Deno.test("McpExecutor: a fail acknowledgement reports failed without comparing", async () => {
  await using f = await fixture();
  const handle = f.executor.start(
    { id: "call_1", name: "echo", arguments: { text: "a" } },
    { signal: live() },
  );
  await handle.outcome;
  assert.deepEqual(
    await handle.release({ kind: "fail", message: "result was not recorded" }, undefined),
    { kind: "failed", message: "result was not recorded" },
  );
  assert.equal(
    (await handle.release({ kind: "deliver" }, response("call_1", "a"))).kind,
    "failed",
  );
});

Deno.test("McpExecutor: many concurrent calls are released in any order to the right callers", async () => {
  await using f = await fixture();
  const handles = Array.from({ length: 50 }, (_, i) =>
    f.executor.start(
      { id: `call_${i}`, name: "echo", arguments: { text: `text ${i}` } },
      { signal: live() },
    ));
  const outcomes = await Promise.all(handles.map((h) => h.outcome));
  assert.ok(outcomes.every((o, i) => o.kind === "executed" && o.response.content === `text ${i}`));
  const deliveries = await Promise.all(
    handles.toReversed().map((h, r) => {
      const i = handles.length - 1 - r;
      const recorded = response(`call_${i}`, `capped ${i}`);
      return h.release({ kind: "replace", content: recorded.content, isError: false }, recorded);
    }),
  );
  assert.ok(deliveries.every((d) => d.kind === "delivered"));
});

Deno.test("McpExecutor: closing the service releases a parked call with a failure, nothing hangs", async () => {
  const f = await fixture();
  const handle = f.executor.start(
    { id: "call_1", name: "echo", arguments: { text: "a" } },
    { signal: live() },
  );
  assert.equal((await handle.outcome).kind, "executed");
  const running = f.executor.start({ id: "call_2", name: "hang", arguments: {} }, {
    signal: live(),
  });
  await f.source.arrived.reached(2);
  await f.service.close();
  assert.equal((await running.outcome).kind, "cancelled");
  assert.deepEqual(await handle.release({ kind: "deliver" }, response("call_1", "a")), {
    kind: "failed",
    message: "call `call_1` cannot be released: call `call_1` is not parked",
  });
  await f[Symbol.asyncDispose]();
});
