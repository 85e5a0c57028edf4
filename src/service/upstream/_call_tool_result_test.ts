import assert from "node:assert/strict";
import { describeInvalidResult, toToolResult } from "./_call_tool_result.ts";

Deno.test("toToolResult() passes content, structuredContent and isError through", () => {
  const image = { type: "image", data: "AAAA", mimeType: "image/png" };
  assert.deepEqual(
    toToolResult({
      content: [{ type: "text", text: "a" }, image],
      structuredContent: { n: 1 },
      isError: false,
    }),
    { content: [{ type: "text", text: "a" }, image], structuredContent: { n: 1 }, isError: false },
  );
  assert.deepEqual(toToolResult({ content: [] }), { content: [] });
});

Deno.test("toToolResult() renders a legacy toolResult as JSON text", () => {
  assert.deepEqual(toToolResult({ toolResult: { ok: true } }), {
    content: [{ type: "text", text: '{"ok":true}' }],
  });
});

Deno.test("toToolResult() rejects results without content", () => {
  assert.throws(() => toToolResult({}), /has no content/);
  assert.throws(() => toToolResult(null), /not an object/);
});

Deno.test("describeInvalidResult() lists the schema issues on one line", () => {
  const zodLike = {
    issues: [
      { path: ["content", 0, "text"], message: "Invalid input: expected string" },
      { path: [], message: "Unrecognized key" },
    ],
  };
  assert.equal(
    describeInvalidResult(zodLike),
    "content.0.text: Invalid input: expected string; (result): Unrecognized key",
  );
  assert.equal(describeInvalidResult(new Error("pipe broke")), undefined);
});
