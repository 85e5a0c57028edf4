/**
 * The contract every tool source passes (builtin functions, local
 * commands, upstream MCP servers): the same answer, in the same words, to a
 * call of an unknown tool, a tool's failure, a cancellation, a timeout and
 * a malformed result. What a source answers is checked where the Host meets
 * it, as the outcome the execution service parks. Each source's test file
 * calls {@linkcode defineToolSourceContract} with a factory; an application
 * that brings its own `ToolSource` to `createRuntime` can run it too.
 *
 * Time is simulated: the factory gets the clock the source's time limits
 * must run on, and the timeout case moves it on by hand once the call is
 * running, so no case waits for time to pass.
 *
 * @module
 */

import assert from "node:assert/strict";
import { SimulatedClock } from "xstate";
import { SpillwayError } from "../errors/spillway_error.ts";
import { runSourceCall } from "../service/source_call.ts";
import type { ExecutionOutcome as ParkedOutcome } from "../service/executor.ts";
import type { TimerClock } from "../service/timer_clock.ts";
import type { ToolSource } from "../service/tool_source.ts";
import { timedOutText } from "../service/tool_timeout.ts";

/**
 * The time limit of the contract's `hang` tool, in ms. It passes on the
 * simulated clock, so its length costs the suite nothing.
 */
export const CONTRACT_TIMEOUT_MS = 300;

/** What the factory of {@linkcode defineToolSourceContract} is given for one test. */
export interface ContractContext {
  /**
   * The clock the source's time limits must run on (its `clock` option):
   * simulated, moved on only by the test.
   */
  readonly clock: TimerClock;
}

/** The tools a source under test offers, by what they do. */
export interface ContractTools {
  /** Answers a text result that is exactly its `text` argument. */
  readonly echo: string;
  /** Fails: an `isError` result whose text contains its `text` argument. */
  readonly fail: string;
  /**
   * Never answers by itself; its time limit is {@linkcode CONTRACT_TIMEOUT_MS}
   * on the contract's clock.
   */
  readonly hang: string;
  /** Never answers by itself; its time limit is long: only a cancellation ends it. */
  readonly wait: string;
  /** Returns something that is not an MCP result; absent when the source cannot. */
  readonly malformed?: string;
}

/** Options of {@linkcode defineToolSourceContract}. */
export interface ToolSourceContractOptions {
  /**
   * Why the source cannot return a malformed result (a local tool's stdout
   * is always a text result); that case is then registered as ignored, with
   * this reason in its name. Default: the source can, and `tools.malformed`
   * names the tool that does.
   */
  readonly noMalformedResult?: string;
}

/** A fresh source and how to observe and remove it. */
export interface SourceUnderTest {
  /** The source, configured with {@linkcode ContractTools}. */
  readonly source: ToolSource;
  /** Its tools. */
  readonly tools: ContractTools;
  /** Counts the calls of `hang` and `wait` that began running in the tool. */
  readonly starts: Milestones;
  /**
   * Counts those whose work was stopped: the process group gone, the
   * upstream server told `notifications/cancelled`, the function's signal
   * aborted.
   */
  readonly stops: Milestones;
  /** Closes the source and removes what the test made. */
  cleanup(): Promise<void>;
}

/**
 * A counter a test can wait on: `reached(n)` resolves once `add()` was
 * called `n` times. It is how the suite waits for a condition (a process
 * started, a cancellation arrived) instead of sleeping.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Milestones } from "./tool_source_contract.ts";
 * const starts = new Milestones();
 * const second = starts.reached(2);
 * starts.add();
 * starts.add();
 * await second;
 * assert.equal(starts.count, 2);
 * ```
 */
export class Milestones {
  #count = 0;
  readonly #waiters: { readonly n: number; readonly resolve: () => void }[] = [];

  /** How many were reached. */
  get count(): number {
    return this.#count;
  }

  /** Marks one more. */
  add(): void {
    this.#count += 1;
    for (const waiter of this.#waiters.filter((w) => w.n <= this.#count)) {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  /** Resolves once `n` were reached (at once if they already were). */
  reached(n: number): Promise<void> {
    if (this.#count >= n) return Promise.resolve();
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#waiters.push({ n, resolve });
    return promise;
  }
}

/** Runs `tool` the way the execution service does, and returns the outcome it parks. */
async function park(
  source: ToolSource,
  tool: string,
  args: Readonly<Record<string, unknown>>,
  signal: AbortSignal = new AbortController().signal,
): Promise<ParkedOutcome> {
  const definition = { name: tool, description: "", inputSchema: { type: "object" } };
  return (await runSourceCall({ source, sourceTool: tool, definition }, "call_1", args, signal))
    .outcome;
}

/** Asserts that `source` still answers after what the test did to it. */
async function assertStillAnswers(source: ToolSource, tools: ContractTools): Promise<void> {
  assert.deepEqual(await park(source, tools.echo, { text: "still here" }), {
    kind: "executed",
    response: { id: "call_1", content: "still here", isError: false },
  });
}

/**
 * Registers the tool source contract as `Deno.test` cases named
 * `"<name> (tool source contract): …"`.
 *
 * @param name the source's name in test names, e.g. `"LocalToolSource"`
 * @param create makes a fresh source for one test, its time limits on the given clock
 * @param options which cases do not apply to the source
 */
export function defineToolSourceContract(
  name: string,
  create: (context: ContractContext) => Promise<SourceUnderTest>,
  options: ToolSourceContractOptions = {},
): void {
  const contract = (
    what: string,
    body: (under: SourceUnderTest, clock: SimulatedClock) => Promise<void>,
    ignore = false,
  ) => {
    Deno.test({
      name: `${name} (tool source contract): ${what}`,
      ignore,
      fn: async () => {
        const clock = new SimulatedClock();
        const under = await create({ clock });
        try {
          await body(under, clock);
        } finally {
          await under.cleanup();
        }
      },
    });
  };

  contract("a result is the tool's text, exactly", async ({ source, tools }) => {
    const text = "héllo\u0000\x1b[1m 👩‍💻";
    assert.deepEqual(await park(source, tools.echo, { text }), {
      kind: "executed",
      response: { id: "call_1", content: text, isError: false },
    });
  });

  contract(
    "an unknown tool is a failed call naming the source and the tool",
    async ({ source, tools }) => {
      const expected = `${source.name} has no tool \`no_such_tool\``;
      await assert.rejects(
        source.call("no_such_tool", {}, { signal: new AbortController().signal }),
        (error) =>
          error instanceof SpillwayError && error.code === "tool_unavailable" &&
          error.message === expected,
      );
      assert.deepEqual(await park(source, "no_such_tool", {}), {
        kind: "failed",
        reason: expected,
      });
      await assertStillAnswers(source, tools);
    },
  );

  contract("a failure is an isError result the assistant can read", async ({ source, tools }) => {
    const outcome = await park(source, tools.fail, { text: "disk on fire" });
    assert.equal(outcome.kind, "executed");
    assert.equal(outcome.kind === "executed" && outcome.response.isError, true);
    assert.match(outcome.kind === "executed" ? outcome.response.content : "", /disk on fire/);
  });

  contract(
    "a cancellation rejects with the signal's reason, stops the work, and the source goes on",
    async ({ source, tools, starts, stops }) => {
      const controller = new AbortController();
      const reason = new DOMException("the person pressed Ctrl-C", "AbortError");
      const call = source.call(tools.wait, {}, { signal: controller.signal });
      await starts.reached(1);
      controller.abort(reason);
      await assert.rejects(call, (thrown) => thrown === reason);
      await stops.reached(1);

      // As the service sees it: a `cancelled` outcome with the reason's text.
      const second = new AbortController();
      const parked = park(source, tools.wait, {}, second.signal);
      await starts.reached(2);
      second.abort("cancelled by the caller");
      assert.deepEqual(await parked, { kind: "cancelled", reason: "cancelled by the caller" });
      await stops.reached(2);
      await assertStillAnswers(source, tools);
    },
  );

  contract(
    `a timeout is an isError result headed "${
      timedOutText(CONTRACT_TIMEOUT_MS)
    }", and the work is stopped`,
    async ({ source, tools, starts, stops }, clock) => {
      const parked = park(source, tools.hang, {});
      await starts.reached(1);
      // The call runs (its deadline is set): its time passes now, at once.
      clock.increment(CONTRACT_TIMEOUT_MS);
      const outcome = await parked;
      assert.equal(outcome.kind, "executed");
      if (outcome.kind !== "executed") return;
      assert.equal(outcome.response.isError, true);
      assert.equal(outcome.response.content.split("\n")[0], timedOutText(CONTRACT_TIMEOUT_MS));
      await stops.reached(1);
      await assertStillAnswers(source, tools);
    },
  );

  const { noMalformedResult } = options;
  contract(
    "a malformed result is a failed call naming the source, the tool and the flaw" +
      (noMalformedResult === undefined ? "" : ` (not applicable: ${noMalformedResult})`),
    async ({ source, tools }) => {
      assert.ok(tools.malformed !== undefined, "tools.malformed names the tool that returns one");
      const outcome = await park(source, tools.malformed, {});
      assert.equal(outcome.kind, "failed");
      const reason = outcome.kind === "failed" ? outcome.reason : "";
      const head = `${source.name} returned a malformed result for \`${tools.malformed}\`: `;
      assert.ok(reason.startsWith(head), reason);
      assert.match(reason.slice(head.length), /^content: .*array/);
      await assertStillAnswers(source, tools);
    },
    noMalformedResult !== undefined,
  );
}
