import assert from "node:assert/strict";
import { assertConversationId } from "./assert_conversation_id.ts";
import { newConversationId } from "./new_conversation_id.ts";

Deno.test("newConversationId() is UTC date-time plus 6 hex characters", () => {
  const id = newConversationId(() => new Date("2026-01-02T03:04:05.678+02:00"));
  assert.match(id, /^20260102-010405-[0-9a-f]{6}$/);
  assertConversationId(id);
});

Deno.test("newConversationId() ids sort by their clock time", () => {
  const times = [
    "2026-11-29T22:56:00Z",
    "2026-11-29T22:56:01Z",
    "2026-12-01T00:00:00Z",
    "2027-01-01T00:00:00Z",
  ];
  const ids = times.map((t) => newConversationId(() => new Date(t)));
  assert.deepEqual(ids.toSorted(), ids);
});

Deno.test("newConversationId() differs within one second", () => {
  const clock = () => new Date("2026-11-29T22:56:00Z");
  const ids = new Set(Array.from({ length: 20 }, () => newConversationId(clock)));
  assert.ok(ids.size >= 19, `only ${ids.size} distinct ids`);
});

Deno.test("newConversationId() defaults to the current time", () => {
  const before = new Date().toISOString().slice(0, 10).replaceAll("-", "");
  const id = newConversationId();
  const after = new Date().toISOString().slice(0, 10).replaceAll("-", "");
  assert.ok(id.startsWith(before) || id.startsWith(after), id);
});

Deno.test("newConversationId() rejects an invalid clock date", () => {
  assert.throws(() => newConversationId(() => new Date(Number.NaN)), RangeError);
});
