import assert from "node:assert/strict";
import fc from "fast-check";
import { createActor, toPromise } from "xstate";
import { parseConfig } from "../config/parse_config.ts";
import { type PhaseInput, phaseMachine, type PhaseOutput } from "../machines/phase_machine.ts";
import { cachedPolicies } from "../runtime/tool_policies.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type {
  Acknowledgement,
  ExecutionHandle,
  ExecutionOutcome,
  Executor,
} from "../service/executor.ts";
import { MemoryStreamStore } from "../stream/memory_stream_store.ts";
import { CollectingNoticeSink } from "../testing/collecting_notice_sink.ts";
import { scriptedPrompter } from "../testing/scripted_prompter.ts";
import { withTestSeed } from "../testing/seed.ts";
import { joinedPhase } from "./_joined_phase.ts";

const CONVERSATION = "20261130-120000-aaaaaa";

/** `small` is cut past 1 KB, `big` never by its own threshold, `asked` asks a person. */
const policyFor = cachedPolicies(parseConfig(`
[conversation.tools.small]
size_threshold = "1KB"
[conversation.tools.big]
size_threshold = "unlimited"
[conversation.tools.asked]
result = "ask"
`));

interface CallCase {
  readonly tool: "small" | "big" | "missing";
  readonly kind: ExecutionOutcome["kind"];
  readonly bytes: number;
  readonly isError: boolean;
}

interface PhaseCase {
  readonly calls: readonly CallCase[];
  readonly fault: "none" | "append" | "flush";
}

const phaseCase: fc.Arbitrary<PhaseCase> = fc.record({
  calls: fc.array(
    fc.record({
      tool: fc.constantFrom("small", "big", "big", "big", "missing"),
      kind: fc.constantFrom(
        "executed",
        "executed",
        "executed",
        "executed",
        "executed",
        "executed",
        "cancelled",
        "failed",
        "lost",
      ),
      // Small, or 0.6 to 1.5 MB: two to four large ones pass the 2 MiB batch ceiling.
      bytes: fc.oneof(
        { arbitrary: fc.integer({ min: 0, max: 3000 }), weight: 1 },
        { arbitrary: fc.integer({ min: 600_000, max: 1_500_000 }), weight: 2 },
      ),
      isError: fc.boolean(),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  fault: fc.oneof(
    { arbitrary: fc.constant("none" as const), weight: 6 },
    { arbitrary: fc.constantFrom("append" as const, "flush" as const), weight: 2 },
  ),
});

/** What the handles of one run were released with, by call id. */
type Releases = Map<string, { ack: Acknowledgement; recorded: ToolCallResponse | undefined }>;

/** The input of one phase over `c`, with its own store, sink and handles. */
async function phaseInput(c: PhaseCase) {
  const store = new MemoryStreamStore({
    failAppend: c.fault === "append",
    failFlush: c.fault === "flush",
  });
  const stream = await store.open(CONVERSATION);
  const sink = new CollectingNoticeSink();
  const releases: Releases = new Map();
  const handle = (id: string, call: CallCase): ExecutionHandle => {
    const response = { id, content: "x".repeat(call.bytes), isError: call.isError };
    const outcome: ExecutionOutcome = call.kind === "executed"
      ? { kind: "executed", response, barrier: "record" }
      : { kind: call.kind, reason: `${call.kind} for a reason` };
    return {
      outcome: Promise.resolve(outcome),
      release: (ack, recorded) => {
        releases.set(id, { ack, recorded });
        return Promise.resolve(
          ack.kind === "fail"
            ? { kind: "failed", message: ack.message }
            : { kind: "delivered", response: recorded ?? response },
        );
      },
    };
  };
  const executor: Executor = {
    has: (tool) => tool !== "missing",
    start: () => {
      throw new Error("a joined phase starts nothing");
    },
  };
  const input: PhaseInput = {
    calls: [],
    joined: c.calls.map((call, i) => ({
      call: { id: `call_${i}`, name: call.tool, arguments: { i } },
      handle: handle(`call_${i}`, call),
      ...(call.tool === "missing" ? { unavailable: true } : {}),
    })),
    executor,
    policyFor,
    available: ["small", "big"],
    prompter: scriptedPrompter(),
    stream,
    noticeSink: sink,
  };
  return { input, stream, sink, releases };
}

/** Everything a phase leaves behind: its output, the stream, the notices, the releases. */
async function outcomeOf(
  run: (input: PhaseInput) => Promise<PhaseOutput>,
  c: PhaseCase,
) {
  const { input, stream, sink, releases } = await phaseInput(c);
  const output = await run(input);
  const { error, ...rest } = output;
  return {
    output: rest,
    error: error === undefined ? undefined : { message: error.message, code: error.code },
    events: (await stream.load()).events,
    notices: sink.lines,
    releases: [...releases].sort(([a], [b]) => a.localeCompare(b)),
  };
}

const throughMachine = (input: PhaseInput) =>
  toPromise(createActor(phaseMachine, { input }).start());

const throughJoinedPhase = (input: PhaseInput) => {
  const phase = joinedPhase(input);
  assert.ok(phase !== undefined, "joinedPhase() declined a phase nobody is asked about");
  return phase;
};

Deno.test("joinedPhase() leaves what the phase machine leaves: stream, deliveries, notices, output (property)", async () => {
  const hits = { cutByThreshold: 0, cutByCeiling: 0, unavailable: 0, early: 0, failed: 0 };
  await withTestSeed(async (seed) => {
    for (const c of fc.sample(phaseCase, { seed, numRuns: 150 })) {
      const expected = await outcomeOf(throughMachine, c);
      const actual = await outcomeOf(throughJoinedPhase, c);
      assert.deepEqual(actual, expected, JSON.stringify(c).slice(0, 400));
      const text = expected.notices.join("\n");
      if (text.includes("size_threshold")) hits.cutByThreshold++;
      if (text.includes("batch ceiling")) hits.cutByCeiling++;
      if (c.calls.some((call) => call.tool === "missing")) hits.unavailable++;
      if (c.calls.some((call) => call.kind !== "executed")) hits.early++;
      if (expected.output.status === "failed") hits.failed++;
    }
  });
  console.log(`joinedPhase property: ${JSON.stringify(hits)} of 150 phases`);
  for (const [branch, count] of Object.entries(hits)) {
    assert.ok(count >= 8, `only ${count} phases reached ${branch}`);
  }
});

Deno.test("joinedPhase() declines a phase in which a person reviews a result", async () => {
  const { input } = await phaseInput({ calls: [], fault: "none" });
  const asked: PhaseInput = {
    ...input,
    joined: [{
      call: { id: "call_0", name: "asked", arguments: {} },
      handle: {
        outcome: new Promise(() => {}),
        release: () => Promise.resolve({ kind: "failed", message: "unused" }),
      },
    }],
  };
  assert.equal(joinedPhase(asked), undefined);
  assert.equal(joinedPhase({ ...input, observer: {} }), undefined);
});
