import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { toToolCallResponse } from "./to_tool_call_response.ts";

const sha256 = (bytes: Uint8Array | string) =>
  `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** 3,000 bytes of a fake PNG, and its base64. */
const PNG = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7) & 0xff);
const PNG_BASE64 = btoa(String.fromCharCode(...PNG));

Deno.test("toToolCallResponse() joins text blocks with newlines and keeps the error flag", () => {
  assert.deepEqual(
    toToolCallResponse("c", {
      content: [{ type: "text", text: "one" }, { type: "text", text: "two" }],
      isError: true,
    }),
    { id: "c", content: "one\ntwo", isError: true },
  );
});

Deno.test("toToolCallResponse() of a result without blocks is empty content", () => {
  assert.deepEqual(toToolCallResponse("c", { content: [] }), {
    id: "c",
    content: "",
    isError: false,
  });
});

Deno.test("toToolCallResponse() types an image by MIME type, decoded size and digest", () => {
  const response = toToolCallResponse("c", {
    content: [
      { type: "text", text: "Here it is:" },
      { type: "image", data: PNG_BASE64, mimeType: "image/png" },
    ],
  });
  assert.deepEqual(response, {
    id: "c",
    content: "Here it is:\n[image: image/png, 2.9 KB]",
    isError: false,
    blocks: [
      { type: "text", text: "Here it is:" },
      { type: "image", mimeType: "image/png", bytes: 3000, digest: sha256(PNG) },
    ],
  });
});

Deno.test("toToolCallResponse() types audio like an image", () => {
  const response = toToolCallResponse("c", {
    content: [{ type: "audio", data: "UklGRiQAAABXQVZF", mimeType: "audio/wav" }],
  });
  const bytes = Uint8Array.from(atob("UklGRiQAAABXQVZF"), (c) => c.charCodeAt(0));
  assert.deepEqual(response.blocks, [
    { type: "audio", mimeType: "audio/wav", bytes: 12, digest: sha256(bytes) },
  ]);
  assert.equal(response.content, "[audio: audio/wav, 12 B]");
});

Deno.test("toToolCallResponse() types an embedded text resource by its UTF-8 bytes", () => {
  const text = "Grüße";
  const response = toToolCallResponse("c", {
    content: [{
      type: "resource",
      resource: { uri: "demo://text/1", mimeType: "text/plain", text },
    }],
  });
  assert.deepEqual(response.blocks, [
    {
      type: "resource",
      uri: "demo://text/1",
      mimeType: "text/plain",
      bytes: 7,
      digest: sha256(text),
    },
  ]);
  assert.equal(response.content, "[resource: demo://text/1, text/plain, 7 B]");
});

Deno.test("toToolCallResponse() types an embedded blob resource by its decoded bytes", () => {
  const response = toToolCallResponse("c", {
    content: [{ type: "resource", resource: { uri: "file:///a.bin", blob: PNG_BASE64 } }],
  });
  assert.deepEqual(response.blocks, [
    { type: "resource", uri: "file:///a.bin", bytes: 3000, digest: sha256(PNG) },
  ]);
  assert.equal(response.content, "[resource: file:///a.bin, 2.9 KB]");
});

Deno.test("toToolCallResponse() types a resource link by name, URI, MIME type and declared size", () => {
  const response = toToolCallResponse("c", {
    content: [
      {
        type: "resource_link",
        uri: "file:///r.pdf",
        name: "r.pdf",
        mimeType: "application/pdf",
        size: 1_048_576,
      },
      { type: "resource_link", uri: "demo://x", name: "x", size: -1 },
    ],
  });
  assert.deepEqual(response.blocks, [
    {
      type: "resource_link",
      uri: "file:///r.pdf",
      name: "r.pdf",
      mimeType: "application/pdf",
      bytes: 1_048_576,
    },
    { type: "resource_link", uri: "demo://x", name: "x" },
  ]);
  assert.equal(
    response.content,
    "[resource_link: r.pdf, file:///r.pdf, application/pdf, 1.0 MB]\n[resource_link: x, demo://x]",
  );
});

Deno.test("toToolCallResponse() identifies structuredContent by the size and digest of its JSON", () => {
  const structured = { temperature: 36, conditions: "rain" };
  const json = JSON.stringify(structured);
  assert.deepEqual(
    toToolCallResponse("c", {
      content: [{ type: "text", text: json }],
      structuredContent: structured,
    }),
    {
      id: "c",
      content: json,
      isError: false,
      structuredContent: { bytes: json.length, digest: sha256(json) },
    },
  );
});

Deno.test("toToolCallResponse() of structuredContent without any block is its JSON text, never empty", () => {
  const structured = { rows: 3, ok: true };
  const json = JSON.stringify(structured);
  assert.deepEqual(toToolCallResponse("c", { content: [], structuredContent: structured }), {
    id: "c",
    content: json,
    isError: false,
    structuredContent: { bytes: json.length, digest: sha256(json) },
  });
});
