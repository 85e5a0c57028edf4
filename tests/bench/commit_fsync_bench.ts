/**
 * Commit durability (docs/performance.md): committing a batch costs one
 * fsync, so the commit of 1,000 responses of ~2 KB (2 MiB in all) must stay
 * within 2× of one 2 MiB append + fsync (the baseline, the file store
 * alone). The commit is timed whole, from `merging` to `done`: the batch in
 * call order, the 2 MiB ceiling spent (everything fits), one append, one
 * fsync, and every call released through its execution link (parked, as
 * the execution service parks it, before the clock runs).
 *
 * Each iteration writes to a fresh conversation so file growth does not
 * skew the figures, and checks its workload before it counts: 1,000
 * responses recorded and delivered, and (once) read back from the file.
 *
 * @module
 */

import { join } from "node:path";
import process from "node:process";
import { createActor, toPromise } from "xstate";
import type { CallRecord } from "../../src/machines/call_record.ts";
import { commitMachine } from "../../src/machines/commit_machine.ts";
import { ExecutionLink } from "../../src/machines/execution_link.ts";
import { acceptedReview } from "../../src/review/review.ts";
import type { StreamEvent, ToolCallResponseEvent } from "../../src/stream/events.ts";
import { FileStreamStore } from "../../src/stream/file_stream_store.ts";
import type { ToolCallResponse } from "../../src/review/tool_call_response.ts";
import { deliveryDifference } from "../../src/service/delivery_difference.ts";
import type { DeliveryOutcome, ExecutionHandle } from "../../src/service/executor.ts";

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

/**
 * The responses, ~2 KB each, 2 MiB in all: the batch fills the ceiling
 * without being cut. Made once, as a tool's result arrives (decoded from the
 * bytes it was sent as: one flat string each, not a concatenation the first
 * reader has to flatten), and handed to every iteration's parked calls:
 * the commit reads them, it does not consume them.
 */
const contents = Array.from(
  { length: BATCH },
  (_, i) =>
    new TextDecoder().decode(
      new TextEncoder().encode(`response ${i}: ` + "lorem ipsum dolor sit amet ".repeat(77)),
    ),
);
let next = 0;

/**
 * A call parked as the execution service parks it: its result held until
 * the Host releases it, then checked against what was recorded (the
 * service's own check, `deliveryDifference`) and delivered. Each handle is
 * released once; `releases` keeps what every caller received.
 *
 * Made directly, not by running each call through a `MockExecutor` in the
 * iteration: that leaves a race, an abort listener and an async function
 * per call as garbage of the bench's own making, for the collector to clear
 * inside the timed commit.
 */
function parkedHandle(response: ToolCallResponse, releases: DeliveryOutcome[]): ExecutionHandle {
  return {
    outcome: Promise.resolve({ kind: "executed", response }),
    release: (ack, recorded) => {
      // Every review of this bench is accepted: the Host delivers the parked result.
      const differs = ack.kind !== "deliver" || recorded === undefined
        ? { expected: recorded?.content ?? "", received: `a ${ack.kind} acknowledgement` }
        : deliveryDifference(recorded, response);
      const delivery: DeliveryOutcome = differs === undefined
        ? { kind: "delivered", response }
        : { kind: "mismatch", ...differs };
      releases.push(delivery);
      return Promise.resolve(delivery);
    },
  };
}

/** A batch of parked calls, as the phase hands it to the commit (every outcome settled). */
async function parkedBatch(releases: DeliveryOutcome[]): Promise<CallRecord[]> {
  return await Promise.all(Array.from({ length: BATCH }, async (_, i) => {
    const call = { id: `call_${i}`, name: "t", arguments: {} };
    const response = { id: call.id, content: contents[i] as string, isError: false };
    const link = new ExecutionLink(call.id, { handle: parkedHandle(response, releases) });
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

/**
 * Left to itself `deno bench` runs ~30 iterations of each here (warm-up
 * included), too few for a median that one fsync stall of the shared disk
 * or one scavenge does not move. The summary leaves the first 20 out (the
 * warm-up and JIT compilation).
 */
const ITERATIONS = { warmup: 20, n: 200 } as const;

const BASELINE = "append";
const COMMIT = "commit";
/** Wall and CPU time (user + system, all threads) of every iteration, in ms, for the summary. */
const times = { [BASELINE]: [] as number[], [COMMIT]: [] as number[] };
const cpuTimes = { [BASELINE]: [] as number[], [COMMIT]: [] as number[] };

/** Runs `work` between `b.start()` and `b.end()`, noting its wall and CPU time under `name`. */
async function timed<T>(
  b: Deno.BenchContext,
  name: typeof BASELINE | typeof COMMIT,
  work: () => Promise<T>,
): Promise<T> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  b.start();
  const result = await work();
  b.end();
  times[name].push(performance.now() - start);
  const used = process.cpuUsage(cpu);
  cpuTimes[name].push((used.user + used.system) / 1000);
  return result;
}

Deno.bench({
  name: "one 2 MiB append + flush (the file store alone)",
  group: "commit",
  baseline: true,
  ...ITERATIONS,
  fn: async (b) => {
    const id = `c${next++}`;
    const stream = await store.open(id);
    await timed(b, BASELINE, async () => {
      await stream.append(baseline);
      await stream.flush();
    });
    await stream.close();
    await Deno.remove(join(root, "conversations", id), { recursive: true });
  },
});

Deno.bench({
  name: `commit of ${BATCH} responses of ~2 KB: merging → … → releasing → done`,
  group: "commit",
  ...ITERATIONS,
  fn: async (b) => {
    const id = `c${next++}`;
    const stream = await store.open(id);
    const releases: DeliveryOutcome[] = [];
    const records = await parkedBatch(releases);
    const output = await timed(b, COMMIT, () =>
      toPromise(
        createActor(commitMachine, {
          input: { records, notices: [], stream, noticeSink: { notice: () => {} } },
        }).start(),
      ));
    const delivered = output.deliveries.filter(({ delivery }) => delivery.kind === "delivered");
    if (
      output.status !== "done" || output.recorded.length !== BATCH ||
      delivered.length !== BATCH || releases.length !== BATCH ||
      releases.some((delivery) => delivery.kind !== "delivered")
    ) {
      throw new Error(`commit ${output.status}: ${delivered.length} of ${BATCH} delivered`);
    }
    if (!checkedFile) {
      const responses = (await stream.load()).events.filter((
        event,
      ): event is ToolCallResponseEvent => event.type === "tool_call_response");
      if (responses.length !== BATCH || responses.some((r, i) => r.content !== contents[i])) {
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

/** The minimum and the median of `list`, its first iterations left out. */
function minAndMedian(list: readonly number[]): [number, number] {
  const sorted = list.slice(ITERATIONS.warmup).sort((a, b) => a - b);
  return [sorted[0] ?? NaN, sorted[Math.floor(sorted.length / 2)] ?? NaN];
}

globalThis.addEventListener("unload", () => {
  const row = (label: string, of: typeof times) => {
    const [commitMin, commitMedian] = minAndMedian(of[COMMIT]);
    const [appendMin, appendMedian] = minAndMedian(of[BASELINE]);
    return `  ${label}: commit ${commitMedian.toFixed(2)} ms vs append + fsync ${
      appendMedian.toFixed(2)
    } ms (median): ${(commitMedian / appendMedian).toFixed(2)}×; min ${commitMin.toFixed(2)} vs ${
      appendMin.toFixed(2)
    } ms: ${(commitMin / appendMin).toFixed(2)}×`;
  };
  console.log([
    "",
    `commit summary (each bench's iterations after its first ${ITERATIONS.warmup}, load ${
      (Deno.loadavg()[0] ?? 0).toFixed(1)
    }):`,
    row("wall time", times) + "; target ≤ 2×",
    row("CPU time ", cpuTimes) + " (the append mostly waits for the disk)",
  ].join("\n"));
});
