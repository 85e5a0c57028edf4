import assert from "node:assert/strict";
import { capText } from "../size/cap_text.ts";
import type { StreamEvent } from "../stream/events.ts";
import { transcriptOf } from "./_transcript.ts";

function responseOf(content: string) {
  const events: StreamEvent[] = [
    { type: "tool_call_request", id: "c1", name: "cargo_test", arguments: {} },
    { type: "tool_call_response", id: "c1", content, is_error: false },
  ];
  const [call] = transcriptOf(events);
  assert.ok(call?.kind === "call");
  return call.response;
}

Deno.test("transcriptOf() marks a response cut when recorded, whichever end the cut kept", () => {
  for (const strategy of ["head", "tail", "head_tail"] as const) {
    const recorded = capText("ok 1\n".repeat(100_000), 4096, { strategy }).text;
    assert.deepEqual(responseOf(recorded)?.cut, { original: "488.2 KB", cap: "4.0 KB" }, strategy);
  }
});

Deno.test("transcriptOf() does not take a marker-like line inside a response for a cut", () => {
  assert.equal(responseOf("... [truncated, lots → less]\nmore")?.cut, undefined);
  assert.equal(responseOf("plain text")?.cut, undefined);
});
