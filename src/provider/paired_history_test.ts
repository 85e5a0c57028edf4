import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestSeed } from "../testing/seed.ts";
import { MISSING_RESPONSE, pairHistory } from "./paired_history.ts";
import type { ConversationMessage, ToolMessage } from "./provider.ts";

const call = (id: string, name = "ls") => ({ id, name, arguments: {} });
const answer = (id: string, content: string, isError = false): ToolMessage => ({
  role: "tool",
  id,
  content,
  isError,
});

Deno.test("pairHistory() answers a call left without a response", () => {
  assert.deepEqual(
    pairHistory([
      { role: "user", content: "go" },
      { role: "assistant", text: "", toolCalls: [call("a"), call("b")] },
      answer("b", "B"),
      { role: "user", content: "next" },
    ]),
    [
      { role: "user", content: "go" },
      { role: "assistant", text: "", toolCalls: [call("a"), call("b")] },
      { role: "tool", id: "a", content: MISSING_RESPONSE, isError: true },
      answer("b", "B"),
      { role: "user", content: "next" },
    ],
  );
});

Deno.test("pairHistory() keeps a response that answers no call as a user note", () => {
  const paired = pairHistory([
    { role: "user", content: "go" },
    answer("ghost", "boo", true),
    { role: "assistant", text: "ok", toolCalls: [call("a")] },
    answer("a", "A"),
    answer("a", "tool call id a repeats an earlier call of the same message", true),
  ]);
  assert.deepEqual(paired, [
    { role: "user", content: "go" },
    {
      role: "user",
      content: "[tool error response to call ghost, which has no matching call]\nboo",
    },
    { role: "assistant", text: "ok", toolCalls: [call("a")] },
    answer("a", "A"),
    {
      role: "user",
      content: "[tool error response to call a, which has no matching call]\n" +
        "tool call id a repeats an earlier call of the same message",
    },
  ]);
});

Deno.test("pairHistory() renames reused and unsafe ids, in the call and its answer alike", () => {
  const paired = pairHistory([
    { role: "user", content: "1" },
    { role: "assistant", text: "", toolCalls: [call("call_1")] },
    answer("call_1", "first"),
    { role: "user", content: "2" },
    { role: "assistant", text: "", toolCalls: [call("call_1"), call("call 2/x")] },
    answer("call_1", "second"),
    answer("call 2/x", "third"),
  ]);
  assert.deepEqual(paired.slice(4), [
    { role: "assistant", text: "", toolCalls: [call("call_1_2"), call("call_2_x")] },
    answer("call_1_2", "second"),
    answer("call_2_x", "third"),
  ]);
});

Deno.test("pairHistory() leaves out an assistant message with neither text nor calls", () => {
  assert.deepEqual(
    pairHistory([
      { role: "user", content: "a" },
      { role: "assistant", text: "", toolCalls: [] },
      { role: "user", content: "b" },
    ]),
    [{ role: "user", content: "a" }, { role: "user", content: "b" }],
  );
});

/** A random conversation over a few ids, so repeats, orphans and gaps all occur. */
const conversation = fc.array(
  fc.oneof(
    fc.record({ role: fc.constant("user" as const), content: fc.string({ maxLength: 5 }) }),
    fc.record({
      role: fc.constant("assistant" as const),
      text: fc.constantFrom("", "hm"),
      toolCalls: fc.array(fc.constantFrom("a", "b", "c d").map((id) => call(id)), { maxLength: 3 }),
    }),
    fc.record({
      role: fc.constant("tool" as const),
      id: fc.constantFrom("a", "b", "c d", "zz"),
      content: fc.string({ maxLength: 5 }).map((s) => `r${s}`),
      isError: fc.boolean(),
    }),
  ),
  { maxLength: 14 },
) as fc.Arbitrary<ConversationMessage[]>;

Deno.test("pairHistory() always yields a history both APIs accept, and drops no response", async () => {
  await withTestSeed((seed) => {
    const hits = { missing: 0, orphan: 0, renamed: 0 };
    fc.assert(
      fc.property(conversation, (messages) => {
        const paired = pairHistory(messages);
        const ids = new Set<string>();
        for (let i = 0; i < paired.length; i++) {
          const message = paired[i]!;
          if (message.role === "tool") assert.fail(`a tool message stands alone at ${i}`);
          if (message.role !== "assistant") continue;
          assert.ok(
            message.text !== "" || message.toolCalls.length > 0,
            "an empty assistant message",
          );
          message.toolCalls.forEach((c, n) => {
            assert.match(c.id, /^[A-Za-z0-9_-]{1,64}$/);
            assert.ok(!ids.has(c.id), `id ${c.id} is used twice`);
            ids.add(c.id);
            const reply = paired[i + 1 + n];
            assert.equal(reply?.role, "tool");
            assert.equal((reply as ToolMessage).id, c.id);
          });
          i += message.toolCalls.length;
        }
        // Every recorded response reaches the model: as a tool result or a note.
        const sent = JSON.stringify(paired);
        for (const message of messages) {
          if (message.role === "tool") {
            assert.ok(sent.includes(JSON.stringify(message.content).slice(1, -1)));
          }
        }
        if (sent.includes(MISSING_RESPONSE)) hits.missing++;
        if (sent.includes("which has no matching call")) hits.orphan++;
        if (/"id":"[a-c]_[0-9]"|"id":"c_d/.test(sent)) hits.renamed++;
      }),
      { seed, numRuns: 500 },
    );
    // The generator must reach every repair, not only tidy histories.
    for (const [branch, count] of Object.entries(hits)) {
      assert.ok(count >= 50, `only ${count} of 500 histories needed a ${branch} repair`);
    }
  });
});
