/**
 * The `session` machine's life through its host: the idle timeout on
 * XState's `SimulatedClock` (no real waits), and the stop and drain.
 */

import assert from "node:assert/strict";
import { SimulatedClock } from "xstate";
import { parseConfig } from "../config/parse_config.ts";
import { cachedPolicies } from "../runtime/tool_policies.ts";
import { ExecutionService } from "../service/execution_service.ts";
import type { CallToolResult } from "../service/sdk.ts";
import { MemoryStreamStore } from "../stream/memory_stream_store.ts";
import type { ConversationStream } from "../stream/stream_store.ts";
import { CollectingNoticeSink } from "../testing/collecting_notice_sink.ts";
import { FakeToolSource, text, untilAborted } from "../testing/fake_tool_source.ts";
import { scriptedPrompter } from "../testing/scripted_prompter.ts";
import { SessionHost } from "./session_host.ts";
import { STREAM_LINGER_MS } from "./session_machine.ts";

const CONVERSATION = "20261201-120000-bbbbbb";

/** The store, counting the streams it opened and those closed again. */
class CountingStore extends MemoryStreamStore {
  opened = 0;
  closed = 0;

  override async open(id: string): Promise<ConversationStream> {
    const stream = await super.open(id);
    this.opened++;
    const close = stream.close.bind(stream);
    let counted = false;
    stream.close = async () => {
      if (!counted) this.closed++;
      counted = true;
      await close();
    };
    return stream;
  }
}

async function setup(idleTimeoutMs?: number) {
  const source = new FakeToolSource("fake", {
    echo: (args) => Promise.resolve(text(String(args.text))),
    hang: (_args, signal) => untilAborted(signal),
  });
  const service = new ExecutionService({ sources: [source], barrierFor: () => "record" });
  await service.start();
  const clock = new SimulatedClock();
  const store = new CountingStore();
  const host = new SessionHost({
    service,
    session: "s1",
    store,
    conversationId: CONVERSATION,
    policyFor: cachedPolicies(parseConfig("")),
    prompter: scriptedPrompter(),
    noticeSink: new CollectingNoticeSink(),
    available: () => service.list().map((tool) => tool.name),
    clock,
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
  });
  let ended: string | undefined;
  void host.ended.then((end) => ended = end.reason);
  let next = 0;
  const call = (name: string, args: Record<string, unknown> = {}) => {
    const callId = `call_${++next}`;
    return host.call(
      { id: callId, name, arguments: args },
      () =>
        service.callTool({ method: "tools/call", params: { name, arguments: args } }, {
          signal: new AbortController().signal,
          callId,
          session: "s1",
        }),
    );
  };
  return {
    service,
    store,
    host,
    clock,
    call,
    source,
    ended: () => ended,
    async [Symbol.asyncDispose]() {
      await service.close();
      await host.close();
    },
  };
}

const textOf = (result: CallToolResult) =>
  result.content.map((block) => block.type === "text" ? block.text : "").join("\n");

/** Lets the actor take what the last step sent it (promise hops, no time). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("an idle session closes itself after its timeout, on the actor's clock, and says so", async () => {
  await using s = await setup(1_000);
  s.clock.increment(999);
  await settle();
  assert.equal(s.ended(), undefined, "not yet");
  s.clock.increment(1);
  assert.deepEqual(await s.host.ended, { reason: "idle" });
  const refused = await s.call("echo", { text: "late" });
  assert.deepEqual([textOf(refused), refused.isError], ["the session is closed", true]);
});

Deno.test("a call in flight holds the idle timeout off; it starts again once the session is idle", async () => {
  await using s = await setup(1_000);
  s.clock.increment(600);
  const running = s.call("hang");
  await s.source.arrived.reached(1);
  s.clock.increment(5_000);
  await settle();
  assert.equal(s.ended(), undefined, "busy sessions do not time out");
  s.service.cancel("call_1", "done waiting");
  assert.equal(textOf(await running), "The user cancelled this tool call.");
  await s.host.drained();
  s.clock.increment(999);
  await settle();
  assert.equal(s.ended(), undefined, "the timeout counts from the moment it went idle");
  s.clock.increment(1);
  assert.deepEqual(await s.host.ended, { reason: "idle" });
  assert.deepEqual(
    s.store.durableEvents(CONVERSATION).map((event) => event.type),
    ["tool_call_request", "tool_call_response"],
  );
});

Deno.test("what the client sends besides calls starts an idle session's timeout again", async () => {
  await using s = await setup(1_000);
  s.clock.increment(900);
  s.host.touch();
  s.clock.increment(900);
  await settle();
  assert.equal(s.ended(), undefined, "900 ms since the last request");
  s.clock.increment(100);
  assert.deepEqual(await s.host.ended, { reason: "idle" });
  s.host.touch(); // after the end: nothing to start again, no fault
});

Deno.test("a session keeps its stream while calls follow each other, and releases it once idle for the linger", async () => {
  await using s = await setup();
  assert.equal(textOf(await s.call("echo", { text: "one" })), "one");
  assert.deepEqual([s.store.opened, s.store.closed], [1, 0], "opened for the first commit");
  // The phase ends just after its client got the result: then the linger starts.
  await s.host.drained();
  s.clock.increment(STREAM_LINGER_MS - 1);
  await settle();
  assert.equal(textOf(await s.call("echo", { text: "two" })), "two");
  await s.host.drained();
  s.clock.increment(STREAM_LINGER_MS - 1);
  await settle();
  assert.deepEqual([s.store.opened, s.store.closed], [1, 0], "the linger starts after each commit");
  s.clock.increment(1);
  await settle();
  assert.deepEqual([s.store.opened, s.store.closed], [1, 1], "idle for the linger: released");
  assert.equal(textOf(await s.call("echo", { text: "three" })), "three");
  assert.deepEqual([s.store.opened, s.store.closed], [2, 1], "opened again for the next commit");
  assert.deepEqual(
    s.store.durableEvents(CONVERSATION).flatMap((event) =>
      event.type === "tool_call_response" ? [event.content] : []
    ),
    ["one", "two", "three"],
  );
  await s.host.close();
  assert.deepEqual([s.store.opened, s.store.closed], [2, 2], "closed with the session");
});

Deno.test("without a timeout a session never closes itself, however long it idles", async () => {
  await using s = await setup();
  s.clock.increment(365 * 24 * 3600 * 1000);
  await settle();
  assert.equal(s.ended(), undefined);
  assert.equal(textOf(await s.call("echo", { text: "still here" })), "still here");
});

Deno.test("a stopped session refuses calls, drains, closes its stream and says it was stopped", async () => {
  await using s = await setup(1_000);
  const running = s.call("hang");
  await s.source.arrived.reached(1);
  s.host.stop("shutting down");
  assert.equal(textOf(await running), "The user cancelled this tool call.");
  await s.host.drained();
  assert.deepEqual(await s.host.ended, { reason: "stopped", message: "shutting down" });
  const refused = await s.call("echo", { text: "late" });
  assert.deepEqual([textOf(refused), refused.isError], ["shutting down", true]);
});
