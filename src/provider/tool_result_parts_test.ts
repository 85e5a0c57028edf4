import assert from "node:assert/strict";
import { blocksText } from "../review/blocks_text.ts";
import type { ContentBlock, MediaBlock } from "../review/content_block.ts";
import { toAnthropicMessages } from "./anthropic_messages.ts";
import { toOpenAiMessages } from "./openai_messages.ts";
import type { ConversationMessage, ToolMessage } from "./provider.ts";
import { MAX_IMAGE_BYTES, toolResultParts } from "./tool_result_parts.ts";

/** An image whose base64 payload is `encoded` characters long. */
const image = (encoded: number, mimeType = "image/png"): MediaBlock => ({
  type: "image",
  mimeType,
  bytes: encoded * 3 / 4,
  digest: "sha256:aa",
  data: "A".repeat(encoded),
});

const TEXT = { type: "text", text: "the chart" } as const;

function result(blocks: ContentBlock[]): ToolMessage {
  return { role: "tool", id: "call_1", content: blocksText(blocks), isError: false, blocks };
}

Deno.test("toolResultParts() sends an image at the limit, and a larger one as its placeholder with a notice", () => {
  const notices: string[] = [];
  const parts = toolResultParts(
    result([TEXT, image(MAX_IMAGE_BYTES), image(MAX_IMAGE_BYTES + 4)]),
    {
      images: true,
      notice: (text) => notices.push(text),
    },
  );
  assert.deepEqual(parts.map((p) => p.type), ["text", "image", "text"]);
  assert.deepEqual(parts[2], { type: "text", text: "[image: image/png, 3.7 MB]" });
  assert.deepEqual(notices, [
    "call call_1: sent its image/png image (3.7 MB) as a placeholder line: " +
    "its base64 is over the 5.0 MB a model takes",
  ]);
});

Deno.test("toolResultParts() sends other kinds, and images to a text-only API, as their placeholder lines: the recorded content", () => {
  const notices: string[] = [];
  const blocks: ContentBlock[] = [
    TEXT,
    image(12, "image/tiff"),
    { type: "audio", mimeType: "audio/wav", bytes: 6, digest: "sha256:bb" },
    { type: "resource", uri: "file:///tmp/report.pdf", bytes: 5, digest: "sha256:cc" },
    { type: "resource_link", uri: "https://example.com/x", name: "x" },
  ];
  const message = result(blocks);
  assert.deepEqual(
    toolResultParts(message, { images: true, notice: (t) => notices.push(t) }),
    [{
      type: "text",
      text: "the chart\n[image: image/tiff, 9 B]\n[audio: audio/wav, 6 B]\n" +
        "[resource: file:///tmp/report.pdf, 5 B]\n[resource_link: x, https://example.com/x]",
    }],
  );
  assert.deepEqual(toolResultParts(message, { images: true }), [
    { type: "text", text: message.content },
  ]);
  assert.deepEqual(toolResultParts(result([TEXT, image(12)]), { notice: (t) => notices.push(t) }), [
    { type: "text", text: "the chart\n[image: image/png, 9 B]" },
  ]);
  assert.deepEqual(notices, [], "a placeholder by kind or by API is no surprise: no notice");
});

Deno.test("toolResultParts() sends an image whose payload is not at hand as its placeholder line", () => {
  const { data: _gone, ...recorded } = image(12);
  assert.deepEqual(toolResultParts(result([recorded]), { images: true }), [
    { type: "text", text: "[image: image/png, 9 B]" },
  ]);
});

Deno.test("toolResultParts() of a response without blocks is its content, never nothing", () => {
  const message: ToolMessage = { role: "tool", id: "c", content: "", isError: false };
  assert.deepEqual(toolResultParts(message, { images: true }), [{ type: "text", text: "" }]);
  assert.deepEqual(toolResultParts(result([]), { images: true }), [{ type: "text", text: "" }]);
});

Deno.test("images go to Anthropic as image blocks inside tool_result, to OpenAI as placeholder text", () => {
  const history: ConversationMessage[] = [
    { role: "user", content: "plot it" },
    { role: "assistant", text: "", toolCalls: [{ id: "call_1", name: "plot", arguments: {} }] },
    result([TEXT, image(8)]),
  ];
  const anthropic = toAnthropicMessages(history);
  assert.deepEqual(anthropic[2], {
    role: "user",
    content: [{
      type: "tool_result",
      tool_use_id: "call_1",
      is_error: false,
      content: [
        { type: "text", text: "the chart" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAAAAAA" } },
      ],
    }],
  });
  assert.deepEqual(toOpenAiMessages(history)[2], {
    role: "tool",
    tool_call_id: "call_1",
    content: "the chart\n[image: image/png, 6 B]",
  });
});
