import assert from "node:assert/strict";
import { toToolCallResponse } from "./to_tool_call_response.ts";

Deno.test("toToolCallResponse() joins text blocks with newlines and keeps the error flag", () => {
  assert.deepEqual(
    toToolCallResponse("c", {
      content: [{ type: "text", text: "one" }, { type: "text", text: "two" }],
      isError: true,
    }),
    { id: "c", content: "one\ntwo", isError: true },
  );
});

Deno.test("toToolCallResponse() of a result without text is empty content", () => {
  assert.deepEqual(toToolCallResponse("c", { content: [] }), {
    id: "c",
    content: "",
    isError: false,
  });
});

Deno.test("toToolCallResponse() carries non-text blocks and structuredContent in order", () => {
  const audio = { type: "audio", data: "AA==", mimeType: "audio/wav" };
  const link = { type: "resource_link", uri: "file:///a", name: "a" };
  assert.deepEqual(
    toToolCallResponse("c", {
      content: [audio, { type: "text", text: "t" }, link],
      structuredContent: { ok: true },
    }),
    {
      id: "c",
      content: "t",
      isError: false,
      nonText: { blocks: [audio, link], structuredContent: { ok: true } },
    },
  );
});

Deno.test("toToolCallResponse() keeps structuredContent alone as nonText", () => {
  assert.deepEqual(
    toToolCallResponse("c", { content: [{ type: "text", text: "t" }], structuredContent: {} }),
    { id: "c", content: "t", isError: false, nonText: { blocks: [], structuredContent: {} } },
  );
});
