/**
 * Nothing dropped silently, as properties over random MCP results (every
 * kind of block, empty and odd text, structured content or not): what is
 * recorded (through the event and its JSON line, as a store keeps it) reads
 * back as the same response; the result as a caller receives it is
 * delivered as recorded; a result with any block is never empty text and
 * holds one placeholder line per non-text block; and a change to any one
 * non-text block's bytes, MIME type or URI is a delivery difference, even
 * when the text is the same.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { placeholderLine } from "../src/review/placeholder_line.ts";
import type { ToolCallResponse } from "../src/review/tool_call_response.ts";
import { deliveryDifference } from "../src/service/delivery_difference.ts";
import type { CallToolResult } from "../src/service/sdk.ts";
import { toToolCallResponse } from "../src/service/to_tool_call_response.ts";
import type { ToolCallResponseEvent } from "../src/stream/events.ts";
import { responseOfEvent, toolCallResponseEvent } from "../src/stream/tool_call_response_event.ts";
import { withTestSeed } from "../src/testing/seed.ts";
import { toolResultOf } from "../src/service/tool_result_of.ts";

type Block = CallToolResult["content"][number];

const base64 = fc.uint8Array({ maxLength: 300 }).map((bytes) =>
  Buffer.from(bytes).toString("base64")
);
const text = fc.string({ unit: "binary", maxLength: 200 });
const mime = fc.constantFrom("image/png", "audio/wav", "application/pdf", "text/plain");
const uri = fc.webUrl().map((url) => url.replace(/^https?/, "demo"));

const block: fc.Arbitrary<Block> = fc.oneof(
  text.map((t): Block => ({ type: "text", text: t })),
  fc.record({ data: base64, mimeType: mime }).map((b): Block => ({ type: "image", ...b })),
  fc.record({ data: base64, mimeType: mime }).map((b): Block => ({ type: "audio", ...b })),
  fc.record({ uri, text, mimeType: fc.option(mime, { nil: undefined }) }).map((r): Block => ({
    type: "resource",
    resource: r.mimeType === undefined
      ? { uri: r.uri, text: r.text }
      : { uri: r.uri, text: r.text, mimeType: r.mimeType },
  })),
  fc.record({ uri, blob: base64 }).map((r): Block => ({ type: "resource", resource: r })),
  fc.record({
    uri,
    name: text,
    mimeType: fc.option(mime, { nil: undefined }),
    size: fc.option(fc.nat(), { nil: undefined }),
  }).map(({ mimeType, size, ...link }): Block => ({
    type: "resource_link",
    ...link,
    ...(mimeType === undefined ? {} : { mimeType }),
    ...(size === undefined ? {} : { size }),
  })),
);

const result: fc.Arbitrary<CallToolResult> = fc.record({
  content: fc.array(block, { maxLength: 6 }),
  isError: fc.boolean(),
  structured: fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
}).map(({ content, isError, structured }) => ({
  content,
  isError,
  ...(structured === undefined ? {} : { structuredContent: structured }),
}));

/** `block` with its identity changed: one payload byte, its MIME type or its URI. */
function altered(block: Block, how: number): Block {
  const flip = (data: string) => {
    const bytes = Buffer.from(data, "base64");
    if (bytes.length === 0) return Buffer.from([how & 0xff]).toString("base64");
    bytes[how % bytes.length] = (bytes[how % bytes.length] ?? 0) ^ 1;
    return bytes.toString("base64");
  };
  switch (block.type) {
    case "image":
    case "audio":
      return how % 2 === 0
        ? { ...block, data: flip(block.data) }
        : { ...block, mimeType: `${block.mimeType}x` };
    case "resource":
      return "blob" in block.resource
        ? { ...block, resource: { ...block.resource, blob: flip(block.resource.blob) } }
        : { ...block, resource: { ...block.resource, text: `${block.resource.text}x` } };
    case "resource_link":
      return { ...block, uri: `${block.uri}x` };
    default:
      return block;
  }
}

/** `response` as a store keeps it and a later load reads it. */
function recordedAndLoaded(response: ToolCallResponse): ToolCallResponse {
  const line = JSON.stringify(toolCallResponseEvent(response));
  return responseOfEvent(JSON.parse(line) as ToolCallResponseEvent);
}

Deno.test("property: recorded equals delivered block by block, and any changed non-text block differs", () =>
  withTestSeed((seed) => {
    const runs = 400;
    let alteredCases = 0;
    let sameText = 0;
    fc.assert(
      fc.property(result, fc.nat(), (mcp, how) => {
        const response = toToolCallResponse("c", toolResultOf(mcp));
        const recorded = recordedAndLoaded(response);
        assert.deepEqual(recorded, response, "read back as recorded");
        assert.equal(
          deliveryDifference(recorded, toToolCallResponse("c", toolResultOf(mcp))),
          undefined,
        );

        const nonText = mcp.content.filter((b) => b.type !== "text");
        const structuredAlone = mcp.content.length === 0 && mcp.structuredContent !== undefined;
        if (nonText.length > 0 || structuredAlone) {
          assert.notEqual(response.content, "", "never empty when there was more than text");
        }
        if (nonText.length > 0) {
          const lines = response.content.split("\n");
          for (const typed of response.blocks ?? []) {
            if (typed.type !== "text") assert.ok(lines.includes(placeholderLine(typed)));
          }
        }

        const index = mcp.content.findIndex((b) => b.type !== "text");
        if (index < 0) return;
        const content = mcp.content.map((b, i) => i === index ? altered(b, how) : b);
        const changed = toToolCallResponse("c", toolResultOf({ ...mcp, content }));
        alteredCases++;
        if (changed.content === recorded.content) sameText++;
        assert.notEqual(deliveryDifference(recorded, changed), undefined, "the change is seen");
      }),
      { seed, numRuns: runs },
    );
    console.log(
      `content property: ${alteredCases}/${runs} cases altered a non-text block, ${sameText} of ` +
        `them without changing the text the model receives`,
    );
    assert.ok(alteredCases >= 200, `only ${alteredCases} cases altered a non-text block`);
    assert.ok(sameText >= 50, `only ${sameText} cases altered a block without changing the text`);
  }));
