/**
 * The `phase` machine: one batch of calls, from the assistant's message to
 * every caller's delivery. The turn invokes it from its `toolPhase` state.
 *
 * When it starts, the triage writes one record per call: calls that will
 * not run are answered at once, every other call gets its execution link.
 * `executing` runs them: a `toolCall` actor for each call a person is asked
 * about, and the phase's own `runUnattendedCalls` for all the others (they
 * take the same route without an actor each: see `execution_link.ts` for
 * why). Once every slot is written, `capping` caps every slot with its
 * tool's `size_threshold` in one place; `committing` invokes the `commit`,
 * which records, flushes and releases the batch, and waits for the asked-
 * about calls to see their release; then `released`, with the commit's
 * output.
 *
 * Whatever happens, no call stays parked: when the turn's signal aborts,
 * every running call is cancelled (and still recorded and released, with
 * its cancellation response); when the phase is stopped before the commit
 * released its calls, they are released with a failure.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { assign, enqueueActions, type EventObject, fromCallback, fromPromise, setup } from "xstate";
import type { NoticeFact } from "../review/notice.ts";
import type { ToolCall } from "../review/tool_call.ts";
import type { Executor } from "../service/executor.ts";
import { reasonText } from "../errors/reason_text.ts";
import type { ConversationStream } from "../stream/stream_store.ts";
import type { CallRecord, IndexedReview } from "./call_record.ts";
import { type CappedSlots, capSlots } from "./cap_slots.ts";
import { commitMachine, type CommitOutput } from "./commit_machine.ts";
import type { ExecutionLink } from "./execution_link.ts";
import type { Prompter } from "./prompter.ts";
import { fromPureStep } from "./from_pure_step.ts";
import { runUnattendedCalls } from "./run_unattended_calls.ts";
import { failedReview } from "./synthesized_reviews.ts";
import {
  type SlotWrittenEvent,
  toolCallMachine,
  type ToolCallOutput,
} from "./tool_call_machine.ts";
import { type JoinedCall, triageCalls } from "./triage_calls.ts";
import type { NoticeSink, PolicyFor } from "./turn_dependencies.ts";
import type { TurnObserver } from "./turn_observer.ts";
import { observe } from "./_observe.ts";

const faultLogger = getLogger(["spillway", "phase"]);

/** What a `phase` actor is started with. */
export interface PhaseInput {
  /** The calls of the assistant's message, in order. */
  readonly calls: readonly ToolCall[];
  /**
   * Calls already running elsewhere that join this batch (an outside MCP
   * client's calls, parked by the service): capped, recorded and released
   * with the others, never started here. Their `run` no longer applies, but
   * under `result = "ask"`/`"edit"` a person is asked about their result
   * like any other call's (the `attended` route); one marked `unavailable`
   * is answered like an unknown tool. Default: none.
   */
  readonly joined?: readonly JoinedCall[];
  /**
   * Knows the tools, runs `calls`. Default: none, for a phase of joined
   * calls alone (their handles release them); one with calls of its own
   * needs one.
   */
  readonly executor?: Executor;
  /** Resolves each tool's policy. */
  readonly policyFor: PolicyFor;
  /** The tool names offered to the model (listed when it names another). */
  readonly available: readonly string[];
  /** What the answer to an unknown tool adds (servers not answering yet). Default: nothing. */
  readonly unavailableNote?: string | undefined;
  /** Asks a person under `ask`/`edit`. */
  readonly prompter: Prompter;
  /** Where the batch is recorded. */
  readonly stream: ConversationStream;
  /** Prints the notices, once the batch is durable. */
  readonly noticeSink: NoticeSink;
  /** Cancels every call of the phase. Default: never. */
  readonly signal?: AbortSignal;
  /** Told when each call starts and when its slot is written. Default: nobody. */
  readonly observer?: TurnObserver;
}

/** What a `phase` actor ends with: the commit's output. */
export type PhaseOutput = CommitOutput;

/** The done event of an asked-about call's `toolCall` actor (its id is `call.<index>`). */
interface ToolCallDoneEvent {
  readonly type: `xstate.done.actor.call.${number}`;
  readonly output: ToolCallOutput;
}

/** The events a `phase` actor handles (from its `toolCall` actors). */
export type PhaseEvent = SlotWrittenEvent | ToolCallDoneEvent;

interface PhaseContext {
  readonly input: PhaseInput;
  /** One record per call, in call order. */
  readonly records: readonly CallRecord[];
  /** How many slots are still unwritten. */
  readonly unwritten: number;
  /** The phase end's notices. */
  readonly notices: readonly NoticeFact[];
  /** How many `toolCall` actors have not reached `released`. */
  readonly unreleased: number;
  readonly committed: CommitOutput | undefined;
}

const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** Writes `reviews` into the slots of `records` (the first review of a slot wins). */
function writeSlots(
  records: readonly CallRecord[],
  reviews: readonly IndexedReview[],
): { records: CallRecord[]; written: number } {
  const byIndex = new Map(reviews.map(({ index, review }) => [index, review]));
  let written = 0;
  const next = records.map((record) => {
    const review = byIndex.get(record.index);
    if (review === undefined || record.review !== undefined) return record;
    written += 1;
    return { ...record, review };
  });
  return { records: next, written };
}

function linksOf(records: readonly CallRecord[]): ExecutionLink[] {
  return records.flatMap(({ link }) => link === undefined ? [] : [link]);
}

const phaseSetup = setup({
  types: {
    input: {} as PhaseInput,
    context: {} as PhaseContext,
    events: {} as PhaseEvent,
    output: {} as PhaseOutput,
  },
  actors: {
    toolCall: toolCallMachine,
    runUnattendedCalls: fromPromise(runUnattendedCalls),
    // Pure: settled when invoked, no promise to wait for.
    capSlots: fromPureStep<CappedSlots, { records: readonly CallRecord[] }>(({ records }) =>
      capSlots(records)
    ),
    commit: commitMachine,
    /**
     * For the phase's whole life: cancels every call when the turn's signal
     * aborts, and when the phase stops, releases with a failure every call
     * the commit has not released (a stopped turn, a crashed phase).
     */
    superviseCalls: fromCallback<
      EventObject,
      { signal: AbortSignal; links: readonly ExecutionLink[] }
    >(({ input }) => {
      const { signal, links } = input;
      const cancel = () => {
        for (const link of links) link.cancel(signal.reason);
      };
      if (signal.aborted) cancel();
      else signal.addEventListener("abort", cancel, { once: true });
      return () => {
        signal.removeEventListener("abort", cancel);
        for (const link of links) link.abandon();
      };
    }),
  },
  guards: {
    allSlotsWritten: ({ context }) => context.unwritten === 0,
    committedAndReleased: ({ context }) =>
      context.committed !== undefined && context.unreleased === 0,
  },
  actions: {
    tellAnswered: ({ context }) => {
      // Calls answered without running are shown too (an unknown tool, run = "skip", …).
      for (const { route, call, review } of context.records) {
        if (route !== "answered" || review === undefined) continue;
        observe(context.input.observer, (o) => o.toolCallResult?.(call, review.response));
      }
    },
    spawnToolCalls: enqueueActions(({ context, enqueue }) => {
      for (const { route, index, call, policy, link } of context.records) {
        if (route !== "attended" || policy === undefined || link === undefined) continue;
        enqueue.spawnChild("toolCall", {
          id: `call.${index}`,
          input: {
            index,
            call,
            policy,
            link,
            prompter: context.input.prompter,
            ...(context.input.observer === undefined ? {} : { observer: context.input.observer }),
          },
        });
      }
    }),
    writeSlots: assign(({ context }, reviews: readonly IndexedReview[]) => {
      const { records, written } = writeSlots(context.records, reviews);
      return { records, unwritten: context.unwritten - written };
    }),
    storeCapped: assign((_, capped: CappedSlots) => ({
      records: capped.records,
      notices: capped.notices,
    })),
    settleCapFault: assign(({ context }, params: { error: unknown }) => {
      // A broken phase end is a runtime fault. It must not strand parked
      // calls: every executed call's slot becomes an error response,
      // committed like any other.
      const reason = `the phase end failed: ${reasonText(params.error)}`;
      faultLogger.error("{reason}", { reason, error: params.error });
      return {
        records: context.records.map((record) =>
          record.route === "answered"
            ? record
            : { ...record, review: failedReview(record.call, reason) }
        ),
        notices: [],
      };
    }),
    storeCommit: assign((_, committed: CommitOutput) => ({ committed })),
    countReleased: assign(({ context }) => ({ unreleased: context.unreleased - 1 })),
  },
});

const machine = phaseSetup.createMachine({
  id: "phase",
  initial: "executing",
  context: ({ input }) => {
    const records = triageCalls(input.calls, input.joined ?? [], {
      ...(input.executor === undefined ? {} : { executor: input.executor }),
      policyFor: input.policyFor,
      available: input.available,
      unavailableNote: input.unavailableNote,
      signal: input.signal ?? NEVER_ABORTED,
    });
    return {
      input,
      records,
      unwritten: records.filter((record) => record.review === undefined).length,
      notices: [],
      unreleased: records.filter((record) => record.route === "attended").length,
      committed: undefined,
    };
  },
  invoke: {
    id: "superviseCalls",
    src: "superviseCalls",
    input: ({ context }) => ({
      signal: context.input.signal ?? NEVER_ABORTED,
      links: linksOf(context.records),
    }),
  },
  states: {
    executing: {
      entry: ["tellAnswered", "spawnToolCalls"],
      invoke: {
        id: "runUnattendedCalls",
        src: "runUnattendedCalls",
        input: ({ context }) => ({
          records: context.records.filter(({ route }) =>
            route === "unattended" || route === "joined"
          ),
          ...(context.input.observer === undefined ? {} : { observer: context.input.observer }),
        }),
        onDone: { actions: { type: "writeSlots", params: ({ event }) => event.output } },
      },
      on: {
        "slot.written": { actions: { type: "writeSlots", params: ({ event }) => [event] } },
      },
      always: { guard: "allSlotsWritten", target: "capping" },
    },
    capping: {
      invoke: {
        id: "capSlots",
        src: "capSlots",
        input: ({ context }) => ({ records: context.records }),
        onDone: {
          target: "committing",
          actions: { type: "storeCapped", params: ({ event }) => event.output },
        },
        onError: {
          target: "committing",
          actions: { type: "settleCapFault", params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    committing: {
      invoke: {
        id: "commit",
        src: "commit",
        input: ({ context }) => ({
          records: context.records,
          notices: context.notices,
          stream: context.input.stream,
          noticeSink: context.input.noticeSink,
        }),
        onDone: { actions: { type: "storeCommit", params: ({ event }) => event.output } },
      },
      on: {
        // An asked-about call reached `released`: the commit's release reached it.
        "xstate.done.actor.call.*": { actions: "countReleased" },
      },
      always: { guard: "committedAndReleased", target: "released" },
    },
    released: { type: "final" },
  },
  output: ({ context }) => {
    // `released` is entered only once the commit is done.
    if (context.committed === undefined) throw new TypeError("the phase ended without a commit");
    return context.committed;
  },
});

/** The type of {@linkcode phaseMachine}. */
export type PhaseMachine = typeof machine;

/**
 * The `phase` machine (states `executing` → `capping` → `committing` →
 * `released`), invoked by the turn's `toolPhase` state; its output is the
 * commit's.
 */
export const phaseMachine: PhaseMachine = machine;
