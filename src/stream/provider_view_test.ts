import assert from "node:assert/strict";
import { capJson } from "../size/cap_json.ts";
import type { StreamEvent } from "./events.ts";
import { conversationView, providerView } from "./provider_view.ts";

const at = "2026-11-29T22:56:00Z";
const turn = (prompt: string): StreamEvent => ({ type: "turn_start", turn_id: "t", prompt, at });
const reply = (text: string): StreamEvent => ({
  type: "chat_response",
  turn_id: "t",
  cycle: 0,
  text,
  at,
});
const call = (id: string, name = "read"): StreamEvent => ({
  type: "tool_call_request",
  id,
  name,
  arguments: { id },
});
const result = (id: string, content: string, is_error = false): StreamEvent => ({
  type: "tool_call_response",
  id,
  content,
  is_error,
});
const strip = (ids: string[], over_bytes?: number): StreamEvent => ({
  type: "compaction",
  strategy: "strip-responses",
  response_ids: ids,
  at,
  ...(over_bytes === undefined ? {} : { over_bytes }),
});

Deno.test("providerView() maps turns, assistant messages with their calls, and responses", () => {
  const view = providerView([
    turn("hello"),
    { type: "chat_request", turn_id: "t", cycle: 0, bytes: 10, at },
    reply("let me look"),
    call("call_1", "ls"),
    call("call_2", "cat"),
    result("call_1", "a.txt"),
    result("call_2", "no such file", true),
    { type: "chat_request", turn_id: "t", cycle: 1, bytes: 20, at },
    reply("done"),
    { type: "turn_end", turn_id: "t", status: "finished", at },
    turn("again"),
  ]);
  assert.deepEqual(view, [
    { role: "user", content: "hello" },
    {
      role: "assistant",
      text: "let me look",
      toolCalls: [
        { id: "call_1", name: "ls", arguments: { id: "call_1" } },
        { id: "call_2", name: "cat", arguments: { id: "call_2" } },
      ],
    },
    { role: "tool", id: "call_1", content: "a.txt", isError: false },
    { role: "tool", id: "call_2", content: "no such file", isError: true },
    { role: "assistant", text: "done", toolCalls: [] },
    { role: "user", content: "again" },
  ]);
});

Deno.test("providerView() gives a tool call request without its chat_response an empty assistant message", () => {
  const view = providerView([turn("x"), call("call_1"), result("call_1", "ok")]);
  assert.deepEqual(view.slice(1, 2), [
    {
      role: "assistant",
      text: "",
      toolCalls: [{ id: "call_1", name: "read", arguments: { id: "call_1" } }],
    },
  ]);
  // A request after a response opens a new assistant message rather than joining an old one.
  const later = providerView([reply("a"), call("c1"), result("c1", "r"), call("c2")]);
  assert.equal(later.length, 3);
  assert.deepEqual(later[2], {
    role: "assistant",
    text: "",
    toolCalls: [{ id: "c2", name: "read", arguments: { id: "c2" } }],
  });
});

Deno.test("providerView() strips listed responses in the view, naming their size, and leaves the events alone", () => {
  const big = "é".repeat(1_500_000); // 3,000,000 bytes
  const events: StreamEvent[] = [
    turn("go"),
    reply(""),
    call("call_1"),
    call("call_2"),
    result("call_1", big),
    result("call_2", "small", true),
    strip(["call_1", "call_unknown"]),
    reply("after"),
  ];
  const view = providerView(events);
  assert.deepEqual(view[2], {
    role: "tool",
    id: "call_1",
    content: "[response removed by compaction: read, 2.8 MB — the original stays in storage]",
    isError: false,
  });
  assert.deepEqual(view[3], { role: "tool", id: "call_2", content: "small", isError: true });
  assert.equal(view.length, 5);
  const original = events[4];
  assert.ok(original?.type === "tool_call_response" && original.content === big);
});

Deno.test("providerView() applies a compaction only to responses recorded before it", () => {
  const view = providerView([
    result("call_1", "x".repeat(2048)),
    strip(["call_1"]),
    result("call_1", "later"),
  ]);
  assert.equal(
    view[0]?.role === "tool" && view[0].content,
    "[response removed by compaction: 2.0 KB — the original stays in storage]",
  );
  assert.equal(view[1]?.role === "tool" && view[1].content, "later");
});

Deno.test("providerView() with over_bytes strips only responses at least that large", () => {
  const view = providerView([
    result("call_1", "small"),
    result("call_1", "y".repeat(5000)),
    strip(["call_1"], 4096),
  ]);
  assert.equal(view[0]?.role === "tool" && view[0].content, "small");
  assert.equal(
    view[1]?.role === "tool" && view[1].content,
    "[response removed by compaction: 4.8 KB — the original stays in storage]",
  );
});

Deno.test("providerView() keeps the original size when a response is stripped twice", () => {
  const view = providerView([
    result("call_1", "z".repeat(10)),
    strip(["call_1"]),
    strip(["call_1"]),
  ]);
  assert.equal(
    view[0]?.role === "tool" && view[0].content,
    "[response removed by compaction: 10 B — the original stays in storage]",
  );
});

Deno.test("providerView() ignores compactions of other strategies", () => {
  const view = providerView([
    result("call_1", "keep"),
    { type: "compaction", strategy: "summarize", response_ids: ["call_1"], at },
  ]);
  assert.deepEqual(view, [{ role: "tool", id: "call_1", content: "keep", isError: false }]);
});

const cap = (ids: string[], caps: number[]): StreamEvent => ({
  type: "compaction",
  strategy: "cap",
  response_ids: ids,
  cap_bytes: caps,
  at,
});

Deno.test("providerView() with a cap compaction cuts the listed responses to their limits", () => {
  const view = providerView([
    turn("go"),
    reply(""),
    call("call_1"),
    call("call_2"),
    result("call_1", "a".repeat(10_000)),
    result("call_2", "b".repeat(500)),
    cap(["call_1", "call_2"], [2048, 2048]),
  ]);
  const first = view[2]?.role === "tool" ? view[2].content : "";
  assert.ok(first.endsWith("\n... [truncated, 9.7 KB → 2.0 KB]"), first.slice(-60));
  assert.ok(new TextEncoder().encode(first).length <= 2048);
  assert.equal(view[3]?.role === "tool" && view[3].content, "b".repeat(500));
});

Deno.test("providerView() with a cap compaction keeps a recorded json cut JSON", () => {
  const rows = Array.from({ length: 3000 }, (_, i) => ({ id: i, title: `row ${i}` }));
  const recorded = capJson(JSON.stringify({ rows }), 65_536).text;
  const view = providerView([
    turn("go"),
    reply(""),
    call("call_1", "query"),
    result("call_1", recorded),
    cap(["call_1"], [2048]),
  ]);
  const content = view[2]?.role === "tool" ? view[2].content : "";
  const at = content.lastIndexOf("\n... [truncated, ");
  assert.equal(content.slice(at), "\n... [truncated, 88.6 KB → 2.0 KB]");
  const kept = JSON.parse(content.slice(0, at)) as { rows: unknown[] };
  assert.deepEqual(kept.rows.slice(0, 3), rows.slice(0, 3));
  assert.ok(new TextEncoder().encode(content).length <= 2048);
});

Deno.test("conversationView() tells each response's tool, batch, sizes and the compaction that changed it", () => {
  const { responses } = conversationView([
    turn("go"),
    reply(""),
    call("call_1", "cat"),
    result("call_1", "x".repeat(4000)),
    reply(""),
    call("call_2", "ls"),
    call("call_3", "ls"),
    result("call_2", "y".repeat(3000)),
    result("call_3", "ok"),
    cap(["call_1"], [1024]),
    strip(["call_1", "call_2"], 2048),
  ]);
  assert.deepEqual(responses.map((r) => [r.id, r.tool, r.batch, r.recordedBytes]), [
    ["call_1", "cat", 0, 4000],
    ["call_2", "ls", 1, 3000],
    ["call_3", "ls", 1, 2],
  ]);
  // call_1 was capped to 1 KB, so the later strip of responses ≥ 2 KB leaves it.
  assert.deepEqual(responses[0]?.compactedBy, { strategy: "cap", eventIndex: 9 });
  assert.ok((responses[0]?.viewBytes ?? 0) <= 1024);
  assert.deepEqual(responses[1]?.compactedBy, { strategy: "strip-responses", eventIndex: 10 });
  assert.equal(responses[2]?.compactedBy, undefined);
  assert.equal(responses[2]?.viewBytes, 2);
});

Deno.test("providerView() ignores a damaged compaction event", () => {
  const damaged = { type: "compaction", strategy: "cap", at } as unknown as StreamEvent;
  assert.deepEqual(providerView([result("c", "keep"), damaged]), [
    { role: "tool", id: "c", content: "keep", isError: false },
  ]);
});
