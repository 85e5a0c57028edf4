/**
 * The batch ceiling through a whole turn: 2 MiB over every response of one
 * assistant message, markers included, spent largest first, with one notice
 * per cut response in call order.
 */

import assert from "node:assert/strict";
import { MockExecutor } from "../src/testing/mock_executor.ts";
import { runTurn } from "../src/machines/run_turn.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../src/review/max_tool_response_batch_bytes.ts";
import { SizeThreshold } from "../src/size/size_threshold.ts";
import { MemoryStreamStore } from "../src/stream/memory_stream_store.ts";
import {
  answer,
  bytesOf,
  callsMessage,
  expectedCut,
  policies,
  responsesOf,
  turnHarness,
} from "./machines_fixtures.ts";

const KB = 1024;
const MB = 1024 * KB;

Deno.test("batch ceiling cuts one 3 MB unlimited response and leaves the small ones whole", async () => {
  const huge = "h".repeat(3 * MB);
  const small1 = "first small response";
  const small2 = "second small response ✓";
  const executor = new MockExecutor({ huge, small1, small2 });
  const h = await turnHarness({
    steps: [
      callsMessage("Three calls.", [["c1", "small1"], ["c2", "huge"], ["c3", "small2"]]),
      answer("Done."),
    ],
    executor,
    policyFor: policies({ huge: { sizeThreshold: SizeThreshold.UNLIMITED } }),
    tools: ["huge", "small1", "small2"],
  });

  const output = await runTurn(h.input);

  assert.equal(output.status, "finished");
  const [r1, r2, r3] = responsesOf(h.store.durableEvents("conversation-1"));
  assert.ok(r1 && r2 && r3);
  assert.equal(r1.content, small1);
  assert.equal(r3.content, small2);
  // The huge response gets everything its siblings leave: 2 MiB − 20 − 25 bytes.
  const level = MAX_TOOL_RESPONSE_BATCH_BYTES - bytesOf(small1) - bytesOf(small2);
  assert.equal(level, 2_097_107);
  assert.equal(r2.content, expectedCut(huge, level, "... [truncated, 3.0 MB → 1.9 MB]"));
  const total = bytesOf(r1.content) + bytesOf(r2.content) + bytesOf(r3.content);
  assert.ok(total <= MAX_TOOL_RESPONSE_BATCH_BYTES, `${total} bytes`);
  assert.deepEqual(h.sink.lines, ["huge: sent 1.9 MB of 3.0 MB to the assistant (batch ceiling)"]);
  // What each caller received is what was recorded.
  for (const response of [r1, r2, r3]) {
    const delivery = executor.deliveryOf(response.id);
    assert.equal(delivery?.kind === "delivered" && delivery.response.content, response.content);
  }
});

Deno.test("batch ceiling shares the budget among responses that each fit their threshold", async () => {
  const names = ["w1", "w2", "w3", "w4", "w5"];
  const text = (name: string) => `${name}:`.padEnd(600 * KB, "z");
  const executor = new MockExecutor(Object.fromEntries(names.map((name) => [name, text(name)])));
  const h = await turnHarness({
    steps: [callsMessage("Five calls.", names.map((name, i) => [`c${i}`, name])), answer("Done.")],
    executor,
    policyFor: policies(
      Object.fromEntries(
        names.map((name) => [name, { sizeThreshold: SizeThreshold.parse("1MB") }]),
      ),
    ),
    tools: names,
  });

  const output = await runTurn(h.input);

  assert.equal(output.status, "finished");
  const responses = responsesOf(h.store.durableEvents("conversation-1"));
  const level = Math.floor(MAX_TOOL_RESPONSE_BATCH_BYTES / 5);
  assert.equal(level, 419_430);
  responses.forEach((response, i) => {
    const name = names[i] as string;
    assert.equal(
      response.content,
      expectedCut(text(name), level, "... [truncated, 600.0 KB → 409.5 KB]"),
    );
  });
  const total = responses.reduce((sum, response) => sum + bytesOf(response.content), 0);
  assert.ok(total <= MAX_TOOL_RESPONSE_BATCH_BYTES, `${total} bytes`);
  assert.deepEqual(
    h.sink.lines,
    names.map((name) => `${name}: sent 409.5 KB of 600.0 KB to the assistant (batch ceiling)`),
  );
});

Deno.test("batch ceiling re-cuts a thresholded response from its original text, with both notices", async () => {
  const names = Array.from({ length: 10 }, (_, i) => `t${i}`);
  const text = (name: string) => `${name}:`.padEnd(300 * KB, "q");
  const executor = new MockExecutor(Object.fromEntries(names.map((name) => [name, text(name)])));
  const h = await turnHarness({
    steps: [callsMessage("Ten calls.", names.map((name, i) => [`c${i}`, name])), answer("Done.")],
    executor,
    tools: names,
  });

  await runTurn(h.input);

  const responses = responsesOf(h.store.durableEvents("conversation-1"));
  const level = Math.floor(MAX_TOOL_RESPONSE_BATCH_BYTES / 10);
  responses.forEach((response, i) => {
    const expected = expectedCut(
      text(names[i] as string),
      level,
      "... [truncated, 300.0 KB → 204.7 KB]",
    );
    assert.equal(response.content, expected);
    assert.equal(response.content.split("[truncated").length, 2, "one marker only");
  });
  assert.deepEqual(h.sink.lines, [
    ...names.map((name) => `${name}: sent 256.0 KB of 300.0 KB to the assistant (size_threshold)`),
    ...names.map((name) => `${name}: sent 204.7 KB of 300.0 KB to the assistant (batch ceiling)`),
  ]);
});

Deno.test("batch ceiling also bounds the responses the Host synthesizes", async () => {
  // 40 calls to an unknown tool whose name alone is 60 KB: no threshold applies to them.
  const name = "n".repeat(60 * KB);
  const executor = new MockExecutor({});
  const calls = Array.from({ length: 40 }, (_, i): [string, string] => [`c${i}`, name]);
  const h = await turnHarness({ steps: [callsMessage("Many.", calls), answer("Done.")], executor });
  await runTurn(h.input);
  const responses = responsesOf(h.store.durableEvents("conversation-1"));
  assert.equal(responses.length, 40);
  const total = responses.reduce((sum, response) => sum + bytesOf(response.content), 0);
  assert.ok(total <= MAX_TOOL_RESPONSE_BATCH_BYTES, `${total} bytes`);
  assert.equal(h.sink.lines.length, 40);
});

Deno.test("notices are printed only once the batch is durable: after a failed commit none says anything was sent", async () => {
  // The same ten 300 KB responses (ten threshold cuts, ten ceiling cuts), but
  // the commit's flush fails (flush 1 made the assistant's message durable).
  const names = Array.from({ length: 10 }, (_, i) => `t${i}`);
  const executor = new MockExecutor(
    Object.fromEntries(names.map((name) => [name, `${name}:`.padEnd(300 * KB, "q")])),
  );
  let flushes = 0;
  const store = new MemoryStreamStore({ failFlush: () => ++flushes === 2 });
  const h = await turnHarness({
    steps: [callsMessage("Ten calls.", names.map((name, i) => [`c${i}`, name])), answer("Done.")],
    executor,
    tools: names,
    store,
  });

  const output = await runTurn(h.input);

  assert.equal(output.status, "failed");
  assert.equal(
    output.reason,
    "the results of this batch were not recorded: could not flush memory:conversation-1: " +
      "injected flush failure",
  );
  assert.deepEqual(h.sink.lines, []);
  assert.deepEqual(output.notices, []);
  assert.deepEqual(responsesOf(h.store.durableEvents("conversation-1")), []);
  assert.ok(executor.releases.every(({ ack }) => ack.kind === "fail"));
});
