import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { getLogger } from "@logtape/logtape";
import { FileBlobStore } from "../blobs/file_blob_store.ts";
import type { ContentBlock } from "../review/content_block.ts";
import { keepPayloads } from "./_keep_payloads.ts";
import { blockPayload, sha256Ref } from "./payload_bytes.ts";
import { runSourceCall } from "./source_call.ts";
import type { ResolvedRoute } from "./tool_routes.ts";
import type { ToolResult } from "./tool_source.ts";

function route(result: unknown): ResolvedRoute {
  return {
    source: {
      name: "fake",
      list: () => Promise.resolve([]),
      call: () => Promise.resolve(result as ToolResult),
      close: () => Promise.resolve(),
    },
    sourceTool: "probe",
    definition: { name: "probe", description: "probe", inputSchema: {} },
  };
}

const live = new AbortController().signal;

Deno.test("runSourceCall keeps a text-only result as it is, with its error flag", async () => {
  for (
    const raw of [{ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }, {
      content: [{ type: "text", text: "no" }],
      isError: true,
    }]
  ) {
    const end = await runSourceCall(route(raw), "c1", {}, live);
    assert.equal(end.result, raw);
    assert.equal(end.outcome.kind, "executed");
  }
});

Deno.test("runSourceCall validates any other result with the MCP schema", async () => {
  const rich = {
    content: [{ type: "text", text: "a" }, { type: "image", data: "AA==", mimeType: "image/png" }],
    structuredContent: { n: 1 },
  };
  const end = await runSourceCall(route(rich), "c1", {}, live);
  assert.equal(end.outcome.kind, "executed");
  assert.deepEqual(end.result, rich);
  for (
    const bad of [{ content: [{ type: "text", text: 3 }] }, { content: "x" }, { isError: "yes" }]
  ) {
    const failed = await runSourceCall(route(bad), "c1", {}, live);
    assert.equal(failed.outcome.kind, "failed");
    assert.match(
      failed.outcome.kind === "failed" ? failed.outcome.reason : "",
      /^fake returned a malformed result for `probe`/,
    );
  }
});

const PNG = Buffer.from("\x89PNG not really", "latin1");
const PDF = Buffer.from("%PDF not really", "latin1");
const RESULT = {
  content: [
    { type: "text", text: "the screen:" },
    { type: "image", data: PNG.toString("base64"), mimeType: "image/png" },
    { type: "resource", resource: { uri: "file:///doc.pdf", blob: PDF.toString("base64") } },
  ],
};

const log = getLogger(["spillway", "test"]);
const digests = (blocks: readonly ContentBlock[] | undefined) =>
  (blocks ?? []).map((block) => "digest" in block ? block.digest : undefined);

Deno.test("runSourceCall decodes and hashes each payload once: the recorded digests are its references", async () => {
  const end = await runSourceCall(route(RESULT), "c1", {}, live);
  assert.equal(end.outcome.kind, "executed");
  const response = end.outcome.kind === "executed" ? end.outcome.response : undefined;
  assert.deepEqual(end.payloads?.map((p) => p?.ref), digests(response?.blocks));
  assert.deepEqual(new Uint8Array(end.payloads?.[1]?.bytes ?? []), new Uint8Array(PNG));
  assert.equal(end.payloads?.[1]?.ref, sha256Ref(PNG));
  const text = await runSourceCall(
    route({ content: [{ type: "text", text: "a" }] }),
    "c2",
    {},
    live,
  );
  assert.equal(text.payloads, undefined);
});

Deno.test("keepPayloads() stores each payload under its recorded digest without hashing again, and drops them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_payloads_" });
  try {
    const store = new FileBlobStore(join(dir, "blobs"));
    const end = await runSourceCall(route(RESULT), "c1", {}, live);
    const kept = await keepPayloads(end, store, log);
    assert.equal(kept.payloads, undefined, "a parked call holds no decoded payload");
    assert.equal(kept.outcome, end.outcome);
    assert.equal(kept.result, end.result);
    for (const ref of [sha256Ref(PNG), sha256Ref(PDF)]) {
      assert.equal(
        (await store.stat(ref))?.bytes,
        ref === sha256Ref(PNG) ? PNG.length : PDF.length,
      );
    }
    // The blob's name is the digest it was handed: the store did not hash the bytes again.
    const image = blockPayload(
      RESULT.content[1] as { type: "image"; data: string; mimeType: string },
    );
    const handed = `sha256:${"cd".repeat(32)}` as const;
    await keepPayloads({ ...end, payloads: [undefined, { ...image, ref: handed }] }, store, log);
    assert.deepEqual(await Deno.readFile(store.path(handed)), new Uint8Array(PNG));
    // Without a store the payloads are only dropped.
    assert.equal((await keepPayloads(end, undefined, log)).payloads, undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
