/**
 * The executor reaches the execution service over its MCP connection and
 * nothing else: every message of a call goes over the link (`tools/list`,
 * `tools/call`, the channel's `parked` and one `acknowledge` for a whole
 * tick's releases), a cancellation that found no call is withdrawn, the
 * tools it knows follow the service's list, and none of the channel reaches
 * (or can be spoken by) an ordinary MCP client.
 */

import assert from "node:assert/strict";
import { CALL_ID_META_KEY, ExecutionService } from "../src/service/execution_service.ts";
import { CHANNEL_CAPABILITY, CHANNEL_METHODS } from "../src/service/executor_channel.ts";
import { McpExecutor } from "../src/service/mcp_executor.ts";
import {
  type CallToolResult,
  Client,
  InMemoryTransport,
  type JSONRPCMessage,
  type Transport,
  type TransportSendOptions,
} from "../src/service/sdk.ts";
import type { ToolCallOptions, ToolDefinition, ToolSource } from "../src/service/tool_source.ts";
import { FakeToolSource, text, untilAborted } from "../src/testing/fake_tool_source.ts";

/** The client end of a link, noting the method (or `result`) of every message either way. */
class WatchedTransport implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];
  readonly sent: string[] = [];
  readonly received: string[] = [];
  readonly #inner: Transport;

  constructor(inner: Transport) {
    this.#inner = inner;
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      this.received.push(nameOf(message));
      this.onmessage?.(message, extra);
    };
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.sent.push(nameOf(message));
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

function nameOf(message: JSONRPCMessage): string {
  return "method" in message ? message.method : "result" in message ? "result" : "error";
}

/** A source whose tool list can change: `echo`, and `later` once `add()` was called. */
class ChangingSource implements ToolSource {
  readonly name = "changing";
  #more = false;
  #listener: (() => void) | undefined;

  list(): Promise<readonly ToolDefinition[]> {
    const names = this.#more ? ["echo", "later"] : ["echo"];
    return Promise.resolve(names.map((name) => ({ name, description: name, inputSchema: {} })));
  }

  call(tool: string, _args: unknown, _options: ToolCallOptions) {
    return Promise.resolve(text(tool));
  }

  onToolsChanged(listener: () => void): () => void {
    this.#listener = listener;
    return () => this.#listener = undefined;
  }

  add(): void {
    this.#more = true;
    this.#listener?.();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

async function fixture() {
  const source = new FakeToolSource("fake", {
    echo: (args) => Promise.resolve(text(String(args.text))),
    hang: (_args, signal) => untilAborted(signal),
  });
  const service = new ExecutionService({ sources: [source], barrierFor: () => "record" });
  await service.start();
  let watched: WatchedTransport | undefined;
  const executor = await McpExecutor.connect(service, {
    link: () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      watched = new WatchedTransport(client);
      return [watched, server];
    },
  });
  return {
    service,
    source,
    executor,
    link: watched as WatchedTransport,
    async [Symbol.asyncDispose]() {
      await executor.close();
      await service.close();
    },
  };
}

const live = () => new AbortController().signal;

Deno.test("a batch's calls go over the executor's link: each its tools/call, the parks of one tick one parked, its releases one acknowledge", async () => {
  await using f = await fixture();
  assert.deepEqual(f.link.sent, ["initialize", "notifications/initialized", "tools/list"]);
  f.link.sent.length = 0;
  f.link.received.length = 0;
  const handles = Array.from(
    { length: 5 },
    (_, i) =>
      f.executor.start({ id: `c${i}`, name: "echo", arguments: { text: `t${i}` } }, {
        signal: live(),
      }),
  );
  await Promise.all(handles.map((handle) => handle.outcome));
  assert.deepEqual(f.link.received, [CHANNEL_METHODS.parked]);
  const deliveries = await Promise.all(
    handles.map((handle, i) =>
      handle.release({ kind: "deliver" }, { id: `c${i}`, content: `t${i}`, isError: false })
    ),
  );
  assert.ok(deliveries.every((delivery) => delivery.kind === "delivered"));
  assert.deepEqual(f.link.sent, [...Array(5).fill("tools/call"), CHANNEL_METHODS.acknowledge]);
  assert.deepEqual(f.link.received.slice(1), Array(5).fill("result"));
});

Deno.test("a cancelled call that never reached the service withdraws its cancellation: the next call of its id runs", async () => {
  await using f = await fixture();
  const gone = f.executor.start({ id: "c1", name: "nope", arguments: {} }, {
    signal: AbortSignal.abort("Ctrl-C"),
  });
  assert.equal((await gone.outcome).kind, "failed");
  assert.ok(f.link.sent.includes(CHANNEL_METHODS.forget), f.link.sent.join(", "));
  const next = f.executor.start({ id: "c1", name: "echo", arguments: { text: "ran" } }, {
    signal: live(),
  });
  assert.deepEqual(await next.outcome, {
    kind: "executed",
    response: { id: "c1", content: "ran", isError: false },
  });
  await next.release({ kind: "deliver" }, { id: "c1", content: "ran", isError: false });
});

Deno.test("the executor knows the tools the service lists, and follows their changes", async () => {
  const source = new ChangingSource();
  const service = new ExecutionService({ sources: [source], barrierFor: () => "record" });
  await service.start();
  const executor = await McpExecutor.connect(service);
  try {
    assert.equal(executor.has("echo"), true);
    assert.equal(executor.has("later"), false);
    source.add();
    // The service's tools/list_changed and the executor's tools/list take promise hops alone.
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(executor.has("later"), true);
  } finally {
    await executor.close();
    await service.close();
  }
});

Deno.test("an ordinary MCP client gets none of the channel, and what it sends under its names releases nothing", async () => {
  await using f = await fixture();
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await f.service.connect(serverTransport);
  const outsider = new Client({ name: "outsider", version: "1" });
  const heard: string[] = [];
  outsider.fallbackNotificationHandler = (notification) => {
    heard.push(notification.method);
    return Promise.resolve();
  };
  await outsider.connect(clientTransport);
  try {
    let settled = false;
    const result = outsider.callTool({
      name: "echo",
      arguments: { text: "mine" },
      _meta: { [CALL_ID_META_KEY]: "x1" },
    }).finally(() => settled = true) as Promise<CallToolResult>;
    await f.service.waitParked("x1");
    // Even declaring nothing, it tries the executor's own messages: both are ignored.
    await outsider.notification({
      method: CHANNEL_METHODS.cancel,
      params: { callId: "x1", reason: "no" },
    });
    await outsider.notification({
      method: CHANNEL_METHODS.acknowledge,
      params: { acknowledgements: [["x1", { kind: "deliver" }]] },
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(settled, false);
    assert.equal(f.service.callState("x1"), "parked");
    f.service.acknowledge("x1", { kind: "deliver" });
    assert.deepEqual((await result).content, [{ type: "text", text: "mine" }]);
    assert.deepEqual(heard.filter((method) => method.startsWith("notifications/spillway/")), []);
  } finally {
    await outsider.close();
  }
});

Deno.test("a second connection that speaks the channel cannot release the executor's calls", async () => {
  await using f = await fixture();
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await f.service.connect(serverTransport);
  const other = new Client({ name: "other", version: "1" }, { capabilities: CHANNEL_CAPABILITY });
  await other.connect(clientTransport);
  try {
    const handle = f.executor.start({ id: "c1", name: "hang", arguments: {} }, { signal: live() });
    await f.source.arrived.reached(1);
    await other.notification({
      method: CHANNEL_METHODS.cancel,
      params: { callId: "c1", reason: "no" },
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(f.service.callState("c1"), "running", "another connection's cancel is ignored");
    f.service.cancel("c1", "the Host's own");
    assert.deepEqual(await handle.outcome, { kind: "cancelled", reason: "the Host's own" });
    await other.notification({
      method: CHANNEL_METHODS.acknowledge,
      params: { acknowledgements: [["c1", { kind: "fail", message: "not yours" }]] },
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(f.service.callState("c1"), "parked", "nor its acknowledgement");
    const recorded = { id: "c1", content: "cancelled", isError: true };
    assert.deepEqual(
      await handle.release({ kind: "replace", content: "cancelled", isError: true }, recorded),
      { kind: "delivered", response: recorded },
    );
  } finally {
    await other.close();
  }
});
