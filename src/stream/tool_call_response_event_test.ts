import assert from "node:assert/strict";
import { blocksText } from "../review/blocks_text.ts";
import type { ContentBlock } from "../review/content_block.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type { ToolCallResponseEvent } from "./events.ts";
import { providerView } from "./provider_view.ts";
import { responseOfEvent, toolCallResponseEvent } from "./tool_call_response_event.ts";

const digest = `sha256:${"ab".repeat(32)}`;
const BLOCKS: ContentBlock[] = [
  { type: "text", text: "Here:" },
  { type: "image", mimeType: "image/png", bytes: 3993, digest },
  { type: "audio", mimeType: "audio/wav", bytes: 44, digest },
  { type: "resource", uri: "demo://text/1", mimeType: "text/plain", bytes: 61, digest },
  { type: "resource", uri: "demo://blob/2", bytes: 7, digest },
  { type: "resource_link", uri: "demo://blob/1", name: "Blob 1", mimeType: "text/plain" },
  { type: "resource_link", uri: "file:///r.pdf", name: "r.pdf", bytes: 1024 },
];
const RESPONSE: ToolCallResponse = {
  id: "call_1",
  content: blocksText(BLOCKS),
  isError: false,
  blocks: BLOCKS,
  structuredContent: { bytes: 12, digest },
};

Deno.test("a response with every kind of block is recorded snake_case and reads back the same", () => {
  const event = toolCallResponseEvent(RESPONSE);
  assert.deepEqual(event.blocks?.[1], {
    type: "image",
    mime_type: "image/png",
    bytes: 3993,
    digest,
  });
  assert.deepEqual(event.structured_content, { bytes: 12, digest });
  // Through JSON, as the file store writes it.
  const line = JSON.parse(JSON.stringify(event)) as ToolCallResponseEvent;
  assert.deepEqual(responseOfEvent(line), RESPONSE);
});

Deno.test("payloads carried in memory are never recorded", () => {
  const event = toolCallResponseEvent({
    ...RESPONSE,
    blocks: [{ type: "image", mimeType: "image/png", bytes: 3, digest, data: "AAAA" }],
  });
  assert.ok(!JSON.stringify(event).includes("AAAA"));
});

Deno.test("a text-only response is recorded as before: content and is_error", () => {
  assert.deepEqual(toolCallResponseEvent({ id: "c", content: "ok", isError: true }), {
    type: "tool_call_response",
    id: "c",
    content: "ok",
    is_error: true,
  });
});

Deno.test("an old event with a plain content string stays valid", () => {
  const old: ToolCallResponseEvent = {
    type: "tool_call_response",
    id: "c",
    content: "",
    is_error: false,
  };
  assert.deepEqual(responseOfEvent(old), { id: "c", content: "", isError: false });
});

Deno.test("damaged blocks are left out on load: the content alone stands", () => {
  for (
    const blocks of [
      [{ type: "image", mime_type: "image/png", bytes: "3", digest }],
      [{ type: "image", bytes: 3, digest }],
      [{ type: "hologram" }],
      [null],
      [{ type: "resource_link", uri: "u", name: "n", bytes: -1 }],
      [{ type: "resource", uri: "u", mime_type: 7, bytes: 1, digest }],
    ]
  ) {
    const event = { type: "tool_call_response", id: "c", content: "x", is_error: false, blocks };
    assert.deepEqual(
      responseOfEvent(event as unknown as ToolCallResponseEvent),
      { id: "c", content: "x", isError: false },
      JSON.stringify(blocks),
    );
  }
});

Deno.test("the provider view carries recorded blocks, and a compaction drops them with the old text", () => {
  const events = [
    { type: "turn_start", turn_id: "t", prompt: "p", at: "2026-01-01T00:00:00Z" } as const,
    {
      type: "chat_response",
      turn_id: "t",
      cycle: 0,
      text: "",
      at: "2026-01-01T00:00:01Z",
    } as const,
    { type: "tool_call_request", id: "call_1", name: "shot", arguments: {} } as const,
    toolCallResponseEvent(RESPONSE),
  ];
  const [, , tool] = providerView(events);
  assert.deepEqual(tool, {
    role: "tool",
    id: "call_1",
    content: RESPONSE.content,
    isError: false,
    blocks: BLOCKS,
  });
  const [, , stripped] = providerView([...events, {
    type: "compaction",
    strategy: "strip-responses",
    response_ids: ["call_1"],
    at: "2026-01-02T00:00:00Z",
  }]);
  assert.deepEqual(stripped, {
    role: "tool",
    id: "call_1",
    content: "[response removed by compaction: shot, 229 B — the original stays in storage]",
    isError: false,
  });
});
