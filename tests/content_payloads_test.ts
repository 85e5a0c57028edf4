/**
 * Payloads of non-text blocks through `createRuntime`: the stream records
 * digests, the workspace's blob store keeps the bytes under them, a
 * provider that sends images gets each recorded image's payload back (in
 * the next request of the turn and in a continued conversation), a missing
 * payload becomes the placeholder line with one warning, and
 * `conversation gc` keeps what a conversation refers to.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { main } from "../src/cli.ts";
import { FileBlobStore } from "../src/blobs/file_blob_store.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";
import { parseConfig } from "../src/config/parse_config.ts";
import type { ProviderRequest, ToolMessage } from "../src/provider/provider.ts";
import { createRuntime } from "../src/runtime/create_runtime.ts";
import { MAX_IMAGES_SENT, withImagePayloads } from "../src/runtime/image_payloads.ts";
import type { ContentBlock } from "../src/review/content_block.ts";
import { FakeToolSource } from "../src/testing/fake_tool_source.ts";

const PNG = Buffer.from("\x89PNG fake image bytes", "latin1");
const WAV = Buffer.from("RIFF fake audio bytes", "latin1");
const PDF = Buffer.from("%PDF fake document", "latin1");
const sha256 = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const HOUR_MS = 60 * 60 * 1000;

const source = () =>
  new FakeToolSource("media", {
    shot: () =>
      Promise.resolve({
        content: [
          { type: "text", text: "the screen:" },
          { type: "image", data: PNG.toString("base64"), mimeType: "image/png" },
          { type: "audio", data: WAV.toString("base64"), mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///doc.pdf", blob: PDF.toString("base64") } },
        ],
      }),
  });

/** A provider that sends images: asks for `shot` once, then answers; keeps every request. */
function imageModel() {
  const requests: ProviderRequest[] = [];
  return {
    requests,
    provider: {
      sendsImages: true,
      complete(request: ProviderRequest) {
        requests.push(request);
        return Promise.resolve(
          request.cycle === 0
            ? {
              text: "Looking.",
              toolCalls: [{ id: `c${requests.length}`, name: "shot", arguments: {} }],
            }
            : { text: "Seen.", toolCalls: [] },
        );
      },
    },
  };
}

/** A runtime in `workspace` with the media source and `model`; warnings go to `warnings`. */
function mediaRuntime(
  workspace: string,
  model: ReturnType<typeof imageModel>,
  warnings: string[] = [],
) {
  return createRuntime({
    workspace,
    config: parseConfig(""),
    toolSources: [source()],
    provider: model.provider,
    noticeSink: { notice: () => {} },
    warn: (message) => warnings.push(message),
  });
}

const toolMessages = (request: ProviderRequest) =>
  request.messages.filter((m): m is ToolMessage => m.role === "tool");

Deno.test("payloads are kept under their digests and given back to a model that takes images, in this turn and the next", async () => {
  const workspace = await Deno.makeTempDir({ prefix: "spillway_payloads_" });
  const model = imageModel();
  const warnings: string[] = [];
  const runtime = await mediaRuntime(workspace, model, warnings);
  try {
    const first = await runtime.query("look");
    assert.equal(first.status, "finished");
    const store = new FileBlobStore(join(workspace, "blobs"));
    for (const bytes of [PNG, WAV, PDF]) {
      const blob = await store.stat(sha256(bytes) as `sha256:${string}`);
      assert.equal(blob?.bytes, bytes.length, "kept whole under its digest");
    }
    // The next request of the turn: the image block carries its payload again.
    const [shot] = toolMessages(model.requests[1]!);
    const image: ContentBlock = {
      type: "image",
      mimeType: "image/png",
      bytes: PNG.length,
      digest: sha256(PNG),
      data: PNG.toString("base64"),
    };
    assert.deepEqual(shot?.blocks?.[1], image);
    assert.equal(shot?.blocks?.[2]?.type === "audio" && shot.blocks[2].data, undefined);

    // A continued conversation rebuilds the view from the stream, and the image comes back.
    await runtime.query("again", { conversationId: first.conversationId });
    const [again] = toolMessages(model.requests[2]!);
    assert.deepEqual(again?.blocks?.[1], image);
    assert.deepEqual(warnings, []);
  } finally {
    await runtime.close();
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("an image whose payload is gone goes as its placeholder line, with one warning", async () => {
  const workspace = await Deno.makeTempDir({ prefix: "spillway_payloads_" });
  const model = imageModel();
  const warnings: string[] = [];
  const runtime = await mediaRuntime(workspace, model, warnings);
  try {
    const first = await runtime.query("look");
    await Deno.remove(join(workspace, "blobs", sha256(PNG).slice("sha256:".length)));
    await runtime.query("again", { conversationId: first.conversationId });
    await runtime.query("and again", { conversationId: first.conversationId });
    const [again] = toolMessages(model.requests[2]!);
    assert.equal(again?.blocks?.[1]?.type === "image" && again.blocks[1].data, undefined);
    assert.deepEqual(warnings, [
      `call c1: the payload of [image: image/png, ${PNG.length} B] is not in ${
        join(workspace, "blobs")
      }: the model gets its placeholder line`,
    ]);
  } finally {
    await runtime.close();
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("conversation gc keeps the payloads a conversation refers to", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_payloads_gc_" });
  const workspace = join(dir, ".spillway");
  const runtime = await mediaRuntime(workspace, imageModel());
  try {
    assert.equal((await runtime.query("look")).status, "finished");
  } finally {
    await runtime.close();
  }
  try {
    const store = new FileBlobStore(join(workspace, "blobs"));
    const orphan = await store.put("a payload no conversation refers to");
    const io = captureCommandIo({ cwd: dir, now: () => new Date(Date.now() + 48 * HOUR_MS) });
    assert.equal(await main(["conversation", "gc", "--older-than", "0"], io), 0, io.err());
    const left = (await store.list()).map((blob) => blob.ref).sort();
    assert.deepEqual(left, [sha256(PNG), sha256(WAV), sha256(PDF)].sort());
    assert.equal(await store.stat(orphan.ref), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("withImagePayloads() gives back the last images only, and says once that older ones go as placeholders", async () => {
  const dir = await Deno.makeTempDir();
  const store = new FileBlobStore(dir);
  const messages: ToolMessage[] = [];
  for (let i = 0; i < MAX_IMAGES_SENT + 2; i++) {
    const bytes = Buffer.from(`image ${i}`);
    const { ref } = await store.put(`image ${i}`);
    const block: ContentBlock = {
      type: "image",
      mimeType: "image/png",
      bytes: bytes.length,
      digest: ref,
    };
    messages.push({ role: "tool", id: `c${i}`, content: "", isError: false, blocks: [block] });
  }
  const warnings: string[] = [];
  let seen: readonly ToolMessage[] = [];
  const provider = withImagePayloads(
    {
      complete: (request) => {
        seen = toolMessages(request);
        return Promise.resolve({ text: "", toolCalls: [] });
      },
    },
    store,
    (message) => warnings.push(message),
  );
  const request = { messages, tools: [], cycle: 0, signal: new AbortController().signal };
  await provider.complete(request);
  await provider.complete(request);
  const sent = seen.map((m) => m.blocks?.[0]?.type === "image" && m.blocks[0].data !== undefined);
  assert.deepEqual(sent, [false, false, ...Array(MAX_IMAGES_SENT).fill(true)]);
  assert.deepEqual(warnings, [
    `only the last ${MAX_IMAGES_SENT} images of a conversation go to the model as images; ` +
    "older ones go as their placeholder lines",
  ]);
  assert.equal(messages[0]?.blocks?.[0]?.type === "image" && messages[0].blocks[0].data, undefined);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a blob store that cannot keep payloads costs the payloads, never the result", async () => {
  const workspace = await Deno.makeTempDir({ prefix: "spillway_payloads_" });
  await Deno.writeTextFile(join(workspace, "blobs"), "not a directory");
  const model = imageModel();
  const warnings: string[] = [];
  const runtime = await mediaRuntime(workspace, model, warnings);
  try {
    const turn = await runtime.query("look");
    assert.equal(turn.status, "finished");
    assert.deepEqual(turn.errors, []);
    const [shot] = toolMessages(model.requests[1]!);
    assert.equal(shot?.blocks?.length, 4, "recorded with every block");
    assert.equal(shot?.blocks?.[1]?.type === "image" && shot.blocks[1].data, undefined);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /^call c1: the payload of \[image: image\/png, 21 B\] is not in /);
  } finally {
    await runtime.close();
    await Deno.remove(workspace, { recursive: true });
  }
});
