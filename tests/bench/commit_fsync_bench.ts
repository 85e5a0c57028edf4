/**
 * Commit durability (docs/performance.md): committing a batch costs one
 * fsync, so the commit of 1,000 responses of ~2 KB (2 MiB in all) must stay
 * within 2× of one 2 MiB append + fsync (the baseline, the file store
 * alone). The commit is timed whole, from `merging` to `done`: the batch in
 * call order, the 2 MiB ceiling spent (everything fits), one append, one
 * fsync, and every call released through its execution link (parked in a
 * `MockExecutor`, started before the clock runs).
 *
 * Each iteration writes to a fresh conversation so file growth does not
 * skew the figures, and checks its workload before it counts: 1,000
 * responses recorded and delivered, and (once) read back from the file.
 *
 * @module
 */

import { join } from "node:path";
import { createActor, toPromise } from "xstate";
import type { CallRecord } from "../../src/machines/call_record.ts";
import { commitMachine } from "../../src/machines/commit_machine.ts";
import { ExecutionLink } from "../../src/machines/execution_link.ts";
import { acceptedReview } from "../../src/review/review.ts";
import type { StreamEvent, ToolCallResponseEvent } from "../../src/stream/events.ts";
import { FileStreamStore } from "../../src/stream/file_stream_store.ts";
import { MockExecutor } from "../../src/testing/mock_executor.ts";

const root = await Deno.makeTempDir({ prefix: "spillway_commit_bench_" });
globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));
const store = new FileStreamStore(join(root, "conversations"));

const BATCH = 1000;
const baseline: StreamEvent[] = [{
  type: "tool_call_response",
  id: "call_0",
  content: "x".repeat(2 * 1024 * 1024),
  is_error: false,
}];

/** ~2 KB each, 2 MiB in all: the batch fills the ceiling without being cut. */
function content(i: number): string {
  return `response ${i}: ` + "lorem ipsum dolor sit amet ".repeat(77);
}
let next = 0;

/**
 * A batch of parked calls, as the phase hands it to the commit, in an
 * executor of its own (a `MockExecutor` keeps every release it saw).
 */
async function parkedBatch(): Promise<CallRecord[]> {
  const executor = new MockExecutor({ t: (call) => content(Number(call.id.slice(5))) });
  return await Promise.all(Array.from({ length: BATCH }, async (_, i) => {
    const call = { id: `call_${i}`, name: "t", arguments: {} };
    const link = new ExecutionLink(call.id, { executor });
    const outcome = await link.start(call);
    if (outcome.kind !== "executed") throw new Error(`call ${i} did not park`);
    return {
      index: i,
      call,
      route: "unattended" as const,
      policy: undefined,
      link,
      review: acceptedReview("t", outcome.response),
    };
  }));
}

let checkedFile = false;

Deno.bench({
  name: "one 2 MiB append + flush (the file store alone)",
  group: "commit",
  baseline: true,
  fn: async (b) => {
    const id = `c${next++}`;
    const stream = await store.open(id);
    b.start();
    await stream.append(baseline);
    await stream.flush();
    b.end();
    await stream.close();
    await Deno.remove(join(root, "conversations", id), { recursive: true });
  },
});

Deno.bench({
  name: `commit of ${BATCH} responses of ~2 KB: merging → … → releasing → done`,
  group: "commit",
  fn: async (b) => {
    const id = `c${next++}`;
    const stream = await store.open(id);
    const records = await parkedBatch();
    b.start();
    const output = await toPromise(
      createActor(commitMachine, {
        input: { records, notices: [], stream, noticeSink: { notice: () => {} } },
      }).start(),
    );
    b.end();
    const delivered = output.deliveries.filter(({ delivery }) => delivery.kind === "delivered");
    if (
      output.status !== "done" || output.recorded.length !== BATCH || delivered.length !== BATCH
    ) {
      throw new Error(`commit ${output.status}: ${delivered.length} of ${BATCH} delivered`);
    }
    if (!checkedFile) {
      const responses = (await stream.load()).events.filter((
        event,
      ): event is ToolCallResponseEvent => event.type === "tool_call_response");
      if (responses.length !== BATCH || responses.some((r, i) => r.content !== content(i))) {
        throw new Error(
          `the stream holds ${responses.length} responses, not the ${BATCH} committed`,
        );
      }
      checkedFile = true;
    }
    await stream.close();
    await Deno.remove(join(root, "conversations", id), { recursive: true });
  },
});
