/**
 * The execution service's barriers, seen from an external MCP caller (a
 * plain `Client` that sends no `spillway/callId`): what the Host
 * acknowledges is exactly what the caller receives.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type { BarrierKind } from "../src/service/executor.ts";
import {
  ExecutionService,
  type ExecutionServiceOptions,
} from "../src/service/execution_service.ts";
import type { ParkedCall } from "../src/service/parked_call.ts";
import { type CallToolResult, Client, InMemoryTransport } from "../src/service/sdk.ts";
import { ToolLostError } from "../src/service/tool_source.ts";
import {
  type FakeTool,
  FakeToolSource,
  text,
  untilAborted,
} from "../src/testing/fake_tool_source.ts";

const IMAGE = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" } as const;

const TOOLS: Readonly<Record<string, FakeTool>> = {
  big: () => Promise.resolve(text("x".repeat(100_000))),
  reviewed: () => Promise.resolve(text("raw review text")),
  picture: () =>
    Promise.resolve({
      content: [{ type: "text", text: "a chart" }, IMAGE, { type: "text", text: "legend" }],
      structuredContent: { points: 3 },
    }),
  hang: (_args, signal) => untilAborted(signal),
  lose: () => Promise.reject(new ToolLostError("fake exited with code 1")),
  explode: () => Promise.reject(new Error("kaboom")),
  malformed: () => Promise.resolve({ content: [{ type: "text", text: 42 }] }),
};

interface Fixture extends AsyncDisposable {
  readonly service: ExecutionService;
  readonly client: Client;
  readonly source: FakeToolSource;
  /** Parked calls, in order, as the onParked listener saw them. */
  readonly parked: ParkedCall[];
  /** Resolves with the next call to park. */
  nextParked(): Promise<ParkedCall>;
}

async function fixture(
  options: Partial<Pick<ExecutionServiceOptions, "toolNames" | "barrierFor">> = {},
): Promise<Fixture> {
  const source = new FakeToolSource("fake", TOOLS);
  const service = new ExecutionService({
    sources: [source],
    barrierFor: options.barrierFor ?? (() => "record"),
    ...(options.toolNames ? { toolNames: options.toolNames } : {}),
  });
  await service.start();
  const parked: ParkedCall[] = [];
  let waiting: ((call: ParkedCall) => void) | undefined;
  service.onParked((call) => {
    parked.push(call);
    waiting?.(call);
    waiting = undefined;
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await service.connect(serverTransport);
  const client = new Client({ name: "external", version: "1.0.0" });
  await client.connect(clientTransport);
  return {
    service,
    client,
    source,
    parked,
    nextParked: () => new Promise((resolve) => waiting = resolve),
    async [Symbol.asyncDispose]() {
      await client.close();
      await service.close();
    },
  };
}

function call(client: Client, name: string, options: { signal?: AbortSignal } = {}) {
  return client.callTool({ name, arguments: {} }, options) as Promise<CallToolResult>;
}

Deno.test("a replacement given at the Record barrier is exactly what an external caller receives", async () => {
  await using f = await fixture();
  const nextParked = f.nextParked();
  const result = call(f.client, "big");
  const parked = await nextParked;
  assert.equal(parked.callId, "ext_1");
  assert.equal(parked.external, true);
  assert.equal(parked.barrier, "record");
  assert.equal(parked.tool, "big");
  assert.equal(parked.outcome.kind, "executed");
  if (parked.outcome.kind === "executed") {
    assert.equal(parked.outcome.response.content.length, 100_000);
  }
  const capped = "x".repeat(10) + "\n... [truncated, 97.6 KB → 1.0 KB]";
  f.service.acknowledge(parked.callId, { kind: "replace", content: capped, isError: false });
  assert.deepEqual(await result, { content: [{ type: "text", text: capped }], isError: false });
});

Deno.test("the caller gets nothing before the Host acknowledges", async () => {
  await using f = await fixture();
  const nextParked = f.nextParked();
  let settled = false;
  const result = call(f.client, "reviewed").finally(() => settled = true);
  const parked = await nextParked;
  // A round trip sent after the park: any response sent before it has arrived by its end.
  await f.client.listTools();
  assert.equal(settled, false);
  f.service.acknowledge(parked.callId, { kind: "deliver" });
  assert.deepEqual((await result).content, [{ type: "text", text: "raw review text" }]);
});

Deno.test("under the Review barrier the replacement is delivered", async () => {
  const asked: string[] = [];
  await using f = await fixture({
    barrierFor: (
      tool,
    ): BarrierKind => (asked.push(tool), tool === "reviewed" ? "review" : "record"),
  });
  const nextParked = f.nextParked();
  const result = call(f.client, "reviewed");
  const parked = await nextParked;
  assert.equal(parked.barrier, "review");
  assert.deepEqual(asked, ["reviewed"]);
  f.service.acknowledge(parked.callId, {
    kind: "replace",
    content: "edited by the user",
    isError: true,
  });
  assert.deepEqual(await result, {
    content: [{ type: "text", text: "edited by the user" }],
    isError: true,
  });
});

Deno.test("deliver keeps image blocks and structuredContent; the Host sees them typed, with a placeholder line", async () => {
  await using f = await fixture();
  const nextParked = f.nextParked();
  const result = call(f.client, "picture");
  const parked = await nextParked;
  assert.deepEqual(parked.outcome, {
    kind: "executed",
    response: {
      id: "ext_1",
      content: "a chart\n[image: image/png, 8 B]\nlegend",
      isError: false,
      blocks: [
        { type: "text", text: "a chart" },
        {
          type: "image",
          mimeType: "image/png",
          bytes: 8,
          digest: "sha256:" +
            createHash("sha256").update(Buffer.from(IMAGE.data, "base64")).digest("hex"),
        },
        { type: "text", text: "legend" },
      ],
      structuredContent: {
        bytes: 12,
        digest: "sha256:" + createHash("sha256").update('{"points":3}').digest("hex"),
        // The value itself, for the Host's caps to cut; the stream records only size and digest.
        value: { points: 3 },
      },
    },
  });
  f.service.acknowledge(parked.callId, { kind: "deliver" });
  const received = await result;
  assert.deepEqual(received.content, [
    { type: "text", text: "a chart" },
    IMAGE,
    { type: "text", text: "legend" },
  ]);
  assert.deepEqual(received.structuredContent, { points: 3 });
});

Deno.test("replace drops image blocks and structuredContent", async () => {
  await using f = await fixture();
  const nextParked = f.nextParked();
  const result = call(f.client, "picture");
  const parked = await nextParked;
  f.service.acknowledge(parked.callId, { kind: "replace", content: "a chart", isError: false });
  const received = await result;
  assert.deepEqual(received.content, [{ type: "text", text: "a chart" }]);
  assert.equal(received.structuredContent, undefined);
});

Deno.test("fail delivers an error with the Host's message", async () => {
  await using f = await fixture();
  const nextParked = f.nextParked();
  const result = call(f.client, "big");
  const parked = await nextParked;
  f.service.acknowledge(parked.callId, {
    kind: "fail",
    message: "result of ext_1 was not recorded",
  });
  assert.deepEqual(await result, {
    content: [{ type: "text", text: "result of ext_1 was not recorded" }],
    isError: true,
  });
});

Deno.test("an unknown tool is an error result at once, with nothing parked", async () => {
  await using f = await fixture();
  const result = await call(f.client, "nope");
  assert.deepEqual(result, {
    content: [{ type: "text", text: "unknown tool `nope`" }],
    isError: true,
  });
  assert.equal(f.parked.length, 0);
  assert.equal(f.source.calls.length, 0);
});

Deno.test("acknowledge() on an unknown or already released call throws a TypeError", async () => {
  await using f = await fixture();
  assert.throws(() => f.service.acknowledge("call_9", { kind: "deliver" }), {
    name: "TypeError",
    message: "call `call_9` is not parked",
  });
  const nextParked = f.nextParked();
  const result = call(f.client, "big");
  const parked = await nextParked;
  f.service.acknowledge(parked.callId, { kind: "deliver" });
  assert.throws(() => f.service.acknowledge(parked.callId, { kind: "deliver" }), TypeError);
  await result;
});

Deno.test("waitParked() resolves whether it is called before or after the park", async () => {
  await using f = await fixture();
  const early = f.service.waitParked("ext_1");
  const result = call(f.client, "big");
  const parked = await early;
  assert.equal(await f.service.waitParked("ext_1"), parked);
  assert.deepEqual(f.service.parked(), [parked]);
  f.service.acknowledge("ext_1", { kind: "deliver" });
  await result;
  assert.deepEqual(f.service.parked(), []);
});

Deno.test("a lost source, a thrown error and a malformed result park with their reasons", async () => {
  await using f = await fixture();
  for (
    const [tool, expected] of [
      ["lose", { kind: "lost", reason: "fake exited with code 1" }],
      ["explode", { kind: "failed", reason: "fake: kaboom" }],
    ] as const
  ) {
    const nextParked = f.nextParked();
    const result = call(f.client, tool);
    const parked = await nextParked;
    assert.deepEqual(parked.outcome, expected);
    f.service.acknowledge(parked.callId, { kind: "deliver" });
    assert.deepEqual(await result, {
      content: [{ type: "text", text: expected.reason }],
      isError: true,
    });
  }
  const nextParked = f.nextParked();
  const result = call(f.client, "malformed");
  const parked = await nextParked;
  assert.equal(parked.outcome.kind, "failed");
  assert.match(
    parked.outcome.kind === "failed" ? parked.outcome.reason : "",
    /^fake returned a malformed result for `malformed`: /,
  );
  f.service.acknowledge(parked.callId, { kind: "replace", content: "bad tool", isError: true });
  assert.equal((await result).isError, true);
});

Deno.test("service.cancel() aborts a running call, which parks as cancelled", async () => {
  await using f = await fixture();
  const nextParked = f.nextParked();
  const result = call(f.client, "hang");
  await f.source.arrived.reached(1);
  assert.equal(f.service.cancel("ext_1", "Ctrl-C"), true);
  const parked = await nextParked;
  assert.deepEqual(parked.outcome, { kind: "cancelled", reason: "Ctrl-C" });
  assert.equal(f.service.cancel("ext_1"), false);
  f.service.acknowledge("ext_1", {
    kind: "replace",
    content: "cancelled by the user",
    isError: true,
  });
  assert.deepEqual((await result).content, [{ type: "text", text: "cancelled by the user" }]);
});

Deno.test("a caller that cancels over MCP still parks its call, as cancelled", async () => {
  await using f = await fixture();
  const nextParked = f.nextParked();
  const controller = new AbortController();
  const result = call(f.client, "hang", { signal: controller.signal });
  await f.source.arrived.reached(1);
  controller.abort("client gave up");
  await assert.rejects(result);
  const parked = await nextParked;
  assert.equal(parked.outcome.kind, "cancelled");
  f.service.acknowledge(parked.callId, { kind: "replace", content: "cancelled", isError: true });
});

Deno.test("a caller's spillway/callId names the call; a second call with the same id is refused", async () => {
  await using f = await fixture();
  const nextParked = f.nextParked();
  const meta = { "spillway/callId": "call_7" };
  const first = f.client.callTool({ name: "big", arguments: {}, _meta: meta });
  const parked = await nextParked;
  assert.equal(parked.callId, "call_7");
  assert.equal(parked.external, false);
  const second = await f.client.callTool({ name: "big", arguments: {}, _meta: meta });
  assert.deepEqual(second, {
    content: [{ type: "text", text: "call id `call_7` is already in flight" }],
    isError: true,
  });
  f.service.acknowledge("call_7", { kind: "deliver" });
  await first;
});

Deno.test("renamed tools are listed and called under their new name only", async () => {
  await using f = await fixture({
    toolNames: { huge: { source: "fake", sourceTool: "big" } },
    barrierFor: (tool) => tool === "huge" ? "review" : "record",
  });
  const { tools } = await f.client.listTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes("huge"));
  assert.ok(!names.includes("big"));
  assert.deepEqual(tools.find((t) => t.name === "huge")?.inputSchema, { type: "object" });
  const nextParked = f.nextParked();
  const result = call(f.client, "huge");
  const parked = await nextParked;
  assert.equal(parked.tool, "huge");
  assert.equal(parked.barrier, "review");
  assert.deepEqual(f.source.calls.map((c) => c.tool), ["big"]);
  f.service.acknowledge(parked.callId, { kind: "deliver" });
  await result;
  assert.equal((await call(f.client, "big")).isError, true);
});

Deno.test("start() refuses two sources exporting the same tool name", async () => {
  const service = new ExecutionService({
    sources: [new FakeToolSource("a", TOOLS), new FakeToolSource("b", { big: TOOLS.big! })],
    barrierFor: () => "record",
  });
  await assert.rejects(service.start(), {
    name: "SpillwayError",
    code: "config_invalid",
    message: "a and b both list a tool named big: give one of them another name",
  });
  await service.close();
});

Deno.test("close() fails parked calls, cancels running ones, and closes the sources", async () => {
  const f = await fixture();
  const nextParked = f.nextParked();
  const parkedResult = call(f.client, "big");
  await nextParked;
  const running = call(f.client, "hang");
  await f.source.arrived.reached(2);
  await f.service.close();
  const closed = { content: [{ type: "text", text: "runtime closed" }], isError: true };
  assert.deepEqual(await parkedResult, closed);
  assert.deepEqual(await running, closed);
  assert.equal(f.source.closed, true);
  assert.deepEqual(f.parked.map((p) => p.outcome.kind), ["executed", "cancelled"]);
  assert.throws(() => f.service.createServer(), TypeError);
  await f[Symbol.asyncDispose]();
});

Deno.test("parked calls carry the service clock's start and park times, and list() the exported tools", async () => {
  let now = 1000;
  const service = new ExecutionService({
    sources: [
      new FakeToolSource("fake", { slow: () => (now += 250, Promise.resolve(text("done"))) }),
    ],
    barrierFor: () => "record",
    clock: { now: () => now },
  });
  await service.start();
  assert.deepEqual(service.list(), [
    { name: "slow", description: "fake slow", inputSchema: { type: "object" } },
  ]);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await service.connect(serverTransport);
  const client = new Client({ name: "external", version: "1.0.0" });
  await client.connect(clientTransport);
  const result = call(client, "slow");
  const parked = await service.waitParked("ext_1");
  assert.equal(parked.startedAt, 1000);
  assert.equal(parked.parkedAt, 1250);
  service.acknowledge("ext_1", { kind: "deliver" });
  await result;
  await client.close();
  await service.close();
});

Deno.test("a throwing onParked listener does not stop the park or the other listeners", async () => {
  await using f = await fixture();
  f.service.onParked(() => {
    throw new Error("listener bug");
  });
  const seen: string[] = [];
  const unsubscribe = f.service.onParked((p) => seen.push(p.callId));
  const result = call(f.client, "big");
  const parked = await f.service.waitParked("ext_1");
  assert.deepEqual(seen, ["ext_1"]);
  unsubscribe();
  f.service.acknowledge(parked.callId, { kind: "deliver" });
  await result;
  const second = call(f.client, "big");
  await f.service.waitParked("ext_2");
  assert.deepEqual(seen, ["ext_1"]);
  f.service.acknowledge("ext_2", { kind: "deliver" });
  await second;
});
