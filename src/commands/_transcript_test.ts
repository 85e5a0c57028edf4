import assert from "node:assert/strict";
import { capText } from "../size/cap_text.ts";
import type { StreamEvent } from "../stream/events.ts";
import { transcriptOf } from "./_transcript.ts";
import { formatTranscript } from "./conversation_show.ts";

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

Deno.test("a gateway conversation's session_start shows its client, what it said it is, and its MCP revision", () => {
  const items = transcriptOf([{
    type: "session_start",
    client: "alice",
    protocol: "2026-07-28",
    client_info: { name: "claude-code", version: "2.1.337" },
    at: "2026-12-07T18:53:04.120Z",
  }, {
    type: "session_start",
    client: "default",
    protocol: "2025-11-25",
    at: "2026-12-07T18:54:00.000Z",
  }]);
  assert.equal(
    formatTranscript(items),
    "\nSession · 2026-12-07 18:53:04 UTC · client alice (claude-code 2.1.337) · MCP 2026-07-28\n" +
      "\nSession · 2026-12-07 18:54:00 UTC · client default · MCP 2025-11-25\n",
  );
});
