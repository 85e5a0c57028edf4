/**
 * What reopening a conversation costs a gateway session that released its
 * stream while idle (docs/performance.md): the commit of one 1 KB call on a
 * stream kept open (the baseline: one append, one fsync) against the same
 * commit on a stream opened for it and closed after it (the folder, the
 * writer lock, the torn-tail check of a log of 200 calls, then the same
 * append and fsync, then the lock and the file released). The ratio says
 * how long a session should keep its stream after a commit before it
 * releases it.
 *
 * @module
 */

import { join } from "node:path";
import type { StreamEvent } from "../../src/stream/events.ts";
import { FileStreamStore } from "../../src/stream/file_stream_store.ts";

const root = await Deno.makeTempDir({ prefix: "spillway_reopen_bench_" });
globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));
const store = new FileStreamStore(join(root, "conversations"));

const call = (i: number): StreamEvent[] => [
  { type: "tool_call_request", id: `call_${i}`, name: "echo", arguments: { i } },
  { type: "tool_call_response", id: `call_${i}`, content: "x".repeat(1024), is_error: false },
];

/** A conversation with 200 calls recorded already, as a busy session's is. */
async function seeded(id: string) {
  const stream = await store.open(id);
  for (let i = 0; i < 200; i++) await stream.append(call(i));
  await stream.flush();
  return stream;
}

const kept = await seeded("20261201-000000-aaaaaa");
let n = 1_000;

Deno.bench({
  name: "commit one call on a stream kept open",
  group: "reopen",
  baseline: true,
  async fn() {
    await kept.append(call(n++));
    await kept.flush();
  },
});

await (await seeded("20261201-000000-bbbbbb")).close();

Deno.bench({
  name: "open the stream, commit one call, close it",
  group: "reopen",
  async fn() {
    const stream = await store.open("20261201-000000-bbbbbb");
    await stream.append(call(n++));
    await stream.flush();
    await stream.close();
  },
});

Deno.bench({
  name: "open the stream and close it (no commit)",
  group: "reopen",
  async fn() {
    const stream = await store.open("20261201-000000-bbbbbb");
    await stream.close();
  },
});

globalThis.addEventListener("unload", () => void kept.close());
