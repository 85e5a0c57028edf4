import assert from "node:assert/strict";
import { parseConfig } from "../config/parse_config.ts";
import { cachedPolicies } from "../runtime/tool_policies.ts";
import { ExecutionService } from "../service/execution_service.ts";
import type { CallToolResult } from "../service/sdk.ts";
import { MemoryStreamStore } from "../stream/memory_stream_store.ts";
import { CollectingNoticeSink } from "../testing/collecting_notice_sink.ts";
import { type FakeTool, FakeToolSource, text, untilAborted } from "../testing/fake_tool_source.ts";
import { scriptedPrompter } from "../testing/scripted_prompter.ts";
import { SessionHost } from "./session_host.ts";

const CONVERSATION = "20261130-120000-aaaaaa";

/** A service with `hold` (ends when `release(key)` is called), `echo`, and the `extra` tools. */
async function setup(extra: Readonly<Record<string, FakeTool>> = {}) {
  const gates = new Map<string, PromiseWithResolvers<void>>();
  const gate = (key: string) => {
    if (!gates.has(key)) gates.set(key, Promise.withResolvers());
    return gates.get(key) as PromiseWithResolvers<void>;
  };
  const source = new FakeToolSource("fake", {
    hold: async (args, signal) => {
      await Promise.race([gate(String(args.key)).promise, untilAborted(signal)]);
      return text(`released ${args.key}`);
    },
    echo: (args) => Promise.resolve(text(String(args.text))),
    ...extra,
  });
  const service = new ExecutionService({ sources: [source], barrierFor: () => "record" });
  await service.start();
  const store = new MemoryStreamStore();
  const host = new SessionHost({
    service,
    session: "s1",
    store,
    conversationId: CONVERSATION,
    policyFor: cachedPolicies(parseConfig("")),
    prompter: scriptedPrompter(),
    noticeSink: new CollectingNoticeSink(),
    available: () => service.list().map((tool) => tool.name),
  });
  let next = 0;
  /** Calls `name` as a client would; `alter` changes what the service hands back on its way. */
  const call = (
    name: string,
    args: Record<string, unknown>,
    alter: (result: CallToolResult) => CallToolResult = (result) => result,
  ) => {
    const callId = `call_${++next}`;
    const result = host.call(
      { id: callId, name, arguments: args },
      () =>
        service.callTool({ method: "tools/call", params: { name, arguments: args } }, {
          signal: new AbortController().signal,
          callId,
          session: "s1",
        }).then(alter),
    );
    return { callId, result };
  };
  return {
    service,
    store,
    host,
    call,
    release: (key: string) => gate(key).resolve(),
    async [Symbol.asyncDispose]() {
      for (const entry of gates.values()) entry.resolve();
      await service.close();
      await host.close();
    },
  };
}

const textOf = (result: CallToolResult) =>
  result.content.map((block) => block.type === "text" ? block.text : "").join("\n");

Deno.test("SessionHost: calls that arrived together wait for each other", async () => {
  await using s = await setup();
  const a = s.call("hold", { key: "a" });
  const b = s.call("echo", { text: "b" });
  await s.service.waitParked(b.callId);
  s.release("a");
  assert.equal(textOf(await a.result), "released a");
  assert.equal(textOf(await b.result), "b");
  // One commit, in arrival order: b was not recorded (nor released) before a.
  const events = s.store.durableEvents(CONVERSATION);
  assert.deepEqual(events.map((e) => `${e.type} ${"id" in e ? e.id : ""}`), [
    `tool_call_request ${a.callId}`,
    `tool_call_request ${b.callId}`,
    `tool_call_response ${a.callId}`,
    `tool_call_response ${b.callId}`,
  ]);
});

Deno.test("SessionHost: a call that arrives after its phase was sealed is not held by it", async () => {
  await using s = await setup();
  const a = s.call("hold", { key: "a" });
  const b = s.call("echo", { text: "b" });
  await s.service.waitParked(b.callId);
  // b parked: the phase {a, b} is sealed, c opens the next one.
  const c = s.call("echo", { text: "c" });
  assert.equal(textOf(await c.result), "c", "c is delivered while a still runs");
  // A client that always keeps a call open: d arrives while a runs, and is delivered too.
  const d = s.call("echo", { text: "d" });
  assert.equal(textOf(await d.result), "d");
  s.release("a");
  assert.deepEqual([textOf(await a.result), textOf(await b.result)], ["released a", "b"]);
  const events = s.store.durableEvents(CONVERSATION);
  const responses = events.flatMap((e) => e.type === "tool_call_response" ? [e.id] : []);
  assert.deepEqual(responses, [c.callId, d.callId, a.callId, b.callId], "committed as completed");
});

Deno.test("SessionHost.stop: running calls are cancelled and recorded, parked ones committed", async () => {
  await using s = await setup();
  const a = s.call("hold", { key: "a" });
  const b = s.call("echo", { text: "b" });
  await s.service.waitParked(b.callId);
  s.host.stop("shutting down");
  await s.host.drained();
  const [ra, rb] = [await a.result, await b.result];
  assert.deepEqual([textOf(ra), ra.isError], ["The user cancelled this tool call.", true]);
  assert.equal(textOf(rb), "b");
  const refused = await s.call("echo", { text: "c" }).result;
  assert.deepEqual([textOf(refused), refused.isError], ["shutting down", true]);
  const events = s.store.durableEvents(CONVERSATION);
  assert.deepEqual(
    events.flatMap((e) => e.type === "tool_call_response" ? [[e.id, e.content]] : []),
    [[a.callId, "The user cancelled this tool call."], [b.callId, "b"]],
  );
});

Deno.test("SessionHost: a call of a tool that does not exist is recorded, answered with the tools there are, and delivered as recorded", async () => {
  await using s = await setup();
  const unknown = s.call("nope", { x: 1 });
  const result = await unknown.result;
  const answer = "tool nope is not available (available tools: hold, echo)";
  assert.deepEqual(result, { content: [{ type: "text", text: answer }], isError: true });
  assert.deepEqual(s.store.durableEvents(CONVERSATION), [
    { type: "tool_call_request", id: unknown.callId, name: "nope", arguments: { x: 1 } },
    { type: "tool_call_response", id: unknown.callId, content: answer, is_error: true },
  ]);
  assert.equal(s.service.parked().length, 0, "it never reached the service");
});

Deno.test("SessionHost: a call of an unknown tool joins the phase of the calls in flight, in arrival order", async () => {
  await using s = await setup();
  const a = s.call("hold", { key: "a" });
  const unknown = s.call("nope", {});
  // The unknown call sealed the phase {a, nope}: c opens the next one and is not held by a.
  const c = s.call("echo", { text: "c" });
  assert.equal(textOf(await c.result), "c");
  s.release("a");
  assert.equal(textOf(await a.result), "released a");
  assert.match(textOf(await unknown.result), /^tool nope is not available/);
  const events = s.store.durableEvents(CONVERSATION);
  assert.deepEqual(events.map((e) => `${e.type} ${"id" in e ? e.id : ""}`), [
    `tool_call_request ${c.callId}`,
    `tool_call_response ${c.callId}`,
    `tool_call_request ${a.callId}`,
    `tool_call_request ${unknown.callId}`,
    `tool_call_response ${a.callId}`,
    `tool_call_response ${unknown.callId}`,
  ]);
});

Deno.test("SessionHost: when its batch cannot be recorded, a call of an unknown tool gets the not-recorded error, and nothing of the batch is in the stream", async () => {
  await using s = await setup();
  s.store.failFlush = true;
  const unknown = s.call("nope", {});
  const echo = s.call("echo", { text: "e" });
  const [ru, re] = [await unknown.result, await echo.result];
  for (const [result, call] of [[ru, unknown], [re, echo]] as const) {
    assert.equal(result.isError, true);
    assert.match(
      textOf(result),
      new RegExp(`^the result of call ${call.callId} was not recorded: could not flush`),
    );
  }
  s.store.failFlush = false;
  assert.deepEqual(s.store.durableEvents(CONVERSATION), []);
  const again = await s.call("nope", {}).result;
  assert.match(textOf(again), /^tool nope is not available/);
  assert.deepEqual(
    s.store.durableEvents(CONVERSATION).map((e) => e.type),
    ["tool_call_request", "tool_call_response"],
  );
});

/** A tool returning a caption and a 3-byte PNG (`AAAA` in base64). */
const SHOT: Readonly<Record<string, FakeTool>> = {
  shot: () =>
    Promise.resolve({
      content: [
        { type: "text", text: "the screen:" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
    }),
};

Deno.test("SessionHost: an image is delivered whole and recorded block by block", async () => {
  await using s = await setup(SHOT);
  const shot = s.call("shot", {});
  const result = await shot.result;
  assert.deepEqual(result.content, [
    { type: "text", text: "the screen:" },
    { type: "image", data: "AAAA", mimeType: "image/png" },
  ]);
  const [, response] = s.store.durableEvents(CONVERSATION);
  assert.deepEqual(response, {
    type: "tool_call_response",
    id: shot.callId,
    content: "the screen:\n[image: image/png, 3 B]",
    is_error: false,
    blocks: [
      { type: "text", text: "the screen:" },
      {
        type: "image",
        mime_type: "image/png",
        bytes: 3,
        digest: "sha256:709e80c88487a2411e1ee4dfb9f22a861492d20c4765150c0c794abd70f8147c",
      },
    ],
  });
});

Deno.test("SessionHost: an image whose bytes changed after it was recorded is not delivered, though its text is the same", async () => {
  await using s = await setup(SHOT);
  // Same size, so the same placeholder line: only the digest tells them apart.
  const shot = s.call("shot", {}, (result) => ({
    ...result,
    content: result.content.map((block) =>
      block.type === "image" ? { ...block, data: "AAAB" } : block
    ),
  }));
  assert.deepEqual(await shot.result, {
    content: [{
      type: "text",
      text: `the result of call \`${shot.callId}\` differs from what was recorded: not delivered`,
    }],
    isError: true,
  });
});
