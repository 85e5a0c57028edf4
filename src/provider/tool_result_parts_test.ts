import assert from "node:assert/strict";
import { toAnthropicMessages } from "./anthropic_messages.ts";
import { toOpenAiMessages } from "./openai_messages.ts";
import type { ConversationMessage, ToolMessage } from "./provider.ts";
import { MAX_IMAGE_BYTES, toolResultParts } from "./tool_result_parts.ts";

const image = (bytes: number, mimeType = "image/png") => ({
  type: "image",
  mimeType,
  data: "A".repeat(bytes),
});

function result(blocks: Record<string, unknown>[], content = "the chart"): ToolMessage {
  return { role: "tool", id: "call_1", content, isError: false, nonText: { blocks } };
}

Deno.test("toolResultParts() sends an image at the limit, and a larger one as its placeholder with a notice", () => {
  const notices: string[] = [];
  const parts = toolResultParts(result([image(MAX_IMAGE_BYTES), image(MAX_IMAGE_BYTES + 1)]), {
    images: true,
    notice: (text) => notices.push(text),
  });
  assert.deepEqual(parts.map((p) => p.type), ["text", "image", "text"]);
  assert.deepEqual(parts[2], { type: "text", text: "[image: image/png, 5.0 MB]" });
  assert.deepEqual(notices, [
    "call call_1: sent a placeholder for a 5.0 MB image (over the 5.0 MB a model takes)",
  ]);
});

Deno.test("toolResultParts() sends other kinds, and images to a text-only API, as placeholder lines", () => {
  const notices: string[] = [];
  const blocks = [
    image(10, "image/tiff"),
    { type: "audio", mimeType: "audio/wav", data: "UklGRg==" },
    { type: "resource", resource: { uri: "file:///tmp/report.pdf", blob: "JVBERi0=" } },
    { type: "resource_link", uri: "https://example.com/x", name: "x" },
  ];
  assert.deepEqual(
    toolResultParts(result(blocks), { images: true, notice: (t) => notices.push(t) }),
    [{
      type: "text",
      text: "the chart\n[image: image/tiff, 10 B]\n[audio: audio/wav, 8 B]\n" +
        "[resource: file:///tmp/report.pdf]\n[resource_link: https://example.com/x]",
    }],
  );
  assert.deepEqual(toolResultParts(result([image(10)]), { notice: (t) => notices.push(t) }), [
    { type: "text", text: "the chart\n[image: image/png, 10 B]" },
  ]);
  assert.deepEqual(notices, [], "a placeholder by kind or by API is no surprise: no notice");
});

Deno.test("images go to Anthropic as image blocks inside tool_result, to OpenAI as placeholder text", () => {
  const history: ConversationMessage[] = [
    { role: "user", content: "plot it" },
    { role: "assistant", text: "", toolCalls: [{ id: "call_1", name: "plot", arguments: {} }] },
    result([image(8)]),
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
    content: "the chart\n[image: image/png, 8 B]",
  });
});
