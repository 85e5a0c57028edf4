/**
 * Commit durability (docs/performance.md): committing a batch costs one fsync, so
 * recording 1,000 responses of ~2 KB must stay within 2× of one 2 MiB append
 * + fsync (the baseline). Both write about the same bytes; the difference is
 * the per-event serialization.
 *
 * Each iteration writes to a fresh conversation so file growth does not
 * skew the figures; only append + flush are timed.
 *
 * @module
 */

import { join } from "node:path";
import type { StreamEvent } from "../../src/stream/events.ts";
import { FileStreamStore } from "../../src/stream/file_stream_store.ts";

const root = await Deno.makeTempDir({ prefix: "spillway_commit_bench_" });
globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));
const store = new FileStreamStore(join(root, "conversations"));

const baseline: StreamEvent[] = [{
  type: "tool_call_response",
  id: "call_0",
  content: "x".repeat(2 * 1024 * 1024),
  is_error: false,
}];

const batch: StreamEvent[] = Array.from({ length: 1000 }, (_, i) => ({
  type: "tool_call_response",
  id: `call_${i}`,
  content: `response ${i}: ` + "lorem ipsum dolor sit amet ".repeat(75),
  is_error: i % 50 === 0,
}));

let next = 0;

async function commit(b: Deno.BenchContext, events: StreamEvent[]): Promise<void> {
  const id = `c${next++}`;
  const stream = await store.open(id);
  b.start();
  await stream.append(events);
  await stream.flush();
  b.end();
  await stream.close();
  await Deno.remove(join(root, "conversations", id), { recursive: true });
}

Deno.bench({
  name: "one 2 MiB append + flush",
  group: "commit",
  baseline: true,
  fn: async (b) => await commit(b, baseline),
});

Deno.bench({
  name: "1,000 responses of ~2 KB: one append + one flush",
  group: "commit",
  fn: async (b) => await commit(b, batch),
});
