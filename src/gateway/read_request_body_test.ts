import assert from "node:assert/strict";
import { readRequestBody } from "./read_request_body.ts";

/** A POST whose body is `chunks` (each read on demand), then its end, nothing, or a failure. */
function streamed(
  chunks: readonly Uint8Array[],
  ending: "end" | "hang" | "break" = "end",
  headers: Record<string, string> = {},
) {
  let pulled = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[pulled++];
      if (chunk !== undefined) return controller.enqueue(chunk);
      if (ending === "end") controller.close();
      if (ending === "break") controller.error(new Error("connection reset"));
      // "hang": never another chunk.
    },
    cancel() {
      cancelled = true;
    },
  }, { highWaterMark: 0 });
  const request = new Request("http://127.0.0.1/mcp", { method: "POST", body, headers });
  return { request, pulled: () => pulled, cancelled: () => cancelled };
}

const kb = (n: number) => new Uint8Array(n * 1024).fill(0x61);

Deno.test("readRequestBody() joins the chunks of a body without a length", async () => {
  const { request } = streamed([kb(1), kb(2), kb(1)]);
  const body = await readRequestBody(request, { maxBytes: 4 * 1024 });
  assert.equal(body.kind, "read");
  assert.equal(body.kind === "read" && body.bytes.length, 4 * 1024);
});

Deno.test("readRequestBody() stops reading, and cancels the stream, once past the limit", async () => {
  const chunks = Array.from({ length: 100 }, () => kb(64));
  const { request, pulled, cancelled } = streamed(chunks);
  assert.equal((await readRequestBody(request, { maxBytes: 256 * 1024 })).kind, "too_large");
  assert.ok(pulled() <= 6, `read ${pulled()} chunks of 64 KiB for a 256 KiB limit`);
  assert.equal(cancelled(), true);
});

Deno.test("readRequestBody() refuses a declared length over the limit before reading", async () => {
  const { request, pulled } = streamed([kb(1)], "end", { "content-length": String(10 * 1024) });
  assert.equal((await readRequestBody(request, { maxBytes: 4096 })).kind, "too_large");
  assert.equal(pulled(), 0);
});

Deno.test("readRequestBody() gives up on a body that stops coming, and on one that breaks", async () => {
  const hanging = streamed([kb(1)], "hang");
  assert.equal(
    (await readRequestBody(hanging.request, { maxBytes: 4096, timeoutMs: 50 })).kind,
    "timed_out",
  );
  const broken = streamed([kb(1)], "break");
  assert.equal((await readRequestBody(broken.request, { maxBytes: 4096 })).kind, "broken");
});
