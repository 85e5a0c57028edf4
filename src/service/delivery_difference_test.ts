import assert from "node:assert/strict";
import type { ContentBlock } from "../review/content_block.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import { deliveryDifference } from "./delivery_difference.ts";

const A = "sha256:aa";
const B = "sha256:bb";

function withBlocks(blocks: ContentBlock[], extra: Partial<ToolCallResponse> = {}) {
  return { id: "c", content: "same", isError: false, blocks, ...extra };
}

Deno.test("deliveryDifference() golden: names the first differing block of each kind", () => {
  const cases: [ContentBlock, ContentBlock, string, string][] = [
    [
      { type: "text", text: "one" },
      { type: "text", text: "two" },
      'block 1: text "one"',
      'block 1: text "two"',
    ],
    [
      { type: "audio", mimeType: "audio/wav", bytes: 44, digest: A },
      { type: "audio", mimeType: "audio/mpeg", bytes: 44, digest: A },
      `block 1: audio audio/wav 44 bytes ${A}`,
      `block 1: audio audio/mpeg 44 bytes ${A}`,
    ],
    [
      { type: "resource", uri: "demo://1", mimeType: "text/plain", bytes: 5, digest: A },
      { type: "resource", uri: "demo://1", bytes: 5, digest: B },
      `block 1: resource demo://1 text/plain 5 bytes ${A}`,
      `block 1: resource demo://1 - 5 bytes ${B}`,
    ],
    [
      { type: "resource_link", uri: "demo://1", name: "one" },
      { type: "resource_link", uri: "demo://1", name: "one", bytes: 9 },
      'block 1: resource_link demo://1 "one" - -',
      'block 1: resource_link demo://1 "one" - 9',
    ],
  ];
  for (const [recorded, received, expected, got] of cases) {
    assert.deepEqual(deliveryDifference(withBlocks([recorded]), withBlocks([received])), {
      expected,
      received: got,
    });
  }
});

Deno.test("deliveryDifference() sees a missing or extra block, long texts shortened", () => {
  const long = "x".repeat(100);
  assert.deepEqual(
    deliveryDifference(
      withBlocks([{ type: "text", text: long }]),
      withBlocks([{ type: "text", text: `${long}!` }, { type: "text", text: "" }]),
    ),
    {
      expected: `block 1: text "${"x".repeat(80)}…"`,
      received: `block 1: text "${"x".repeat(80)}…"`,
    },
  );
  assert.deepEqual(
    deliveryDifference(
      withBlocks([{ type: "text", text: "a" }]),
      withBlocks([{ type: "text", text: "a" }, { type: "text", text: "" }]),
    ),
    { expected: "block 2: none", received: 'block 2: text ""' },
  );
});

Deno.test("deliveryDifference() compares structuredContent by size and digest", () => {
  const text = { id: "c", content: "{}", isError: false };
  assert.deepEqual(
    deliveryDifference({ ...text, structuredContent: { bytes: 2, digest: A } }, text),
    { expected: `structuredContent 2 bytes ${A}`, received: "no structuredContent" },
  );
  assert.equal(
    deliveryDifference(
      { ...text, structuredContent: { bytes: 2, digest: A } },
      { ...text, structuredContent: { bytes: 2, digest: A } },
    ),
    undefined,
  );
});

Deno.test("deliveryDifference() compares the content text and the error flag first", () => {
  const base = { id: "c", content: "a", isError: false };
  assert.deepEqual(deliveryDifference(base, { ...base, content: "b" }), {
    expected: "a",
    received: "b",
  });
  assert.deepEqual(deliveryDifference(base, { ...base, isError: true }), {
    expected: "isError: false",
    received: "isError: true",
  });
  assert.equal(deliveryDifference(base, { ...base }), undefined);
});
