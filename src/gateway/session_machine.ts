/**
 * The `session` machine: one `spillway serve` client session, from its
 * first call to its close. Two regions run side by side while it is `open`:
 *
 * - `calls`: `idle` (nothing in flight) → `gathering` (a phase is open: the
 *   calls that arrive join it) → `sealed` (one of its calls is ready, so the
 *   next arrival opens the next phase; calls of earlier phases may still
 *   run or wait for their commit) → `idle` again once everything is
 *   committed. `stop` turns any of them into `draining`: new calls are
 *   refused, the running ones cancelled (they park as cancelled, and are
 *   recorded), a person reviewing a result interrupted; once nothing is in
 *   flight, the session closes.
 * - `commits`: `waiting` until a phase is complete (every call of it
 *   ready), then `committing` it, one at a time and in the order they
 *   completed, by invoking the `phase` machine (the one the runtime's own
 *   turns run) over its calls as joined calls; the session's stream is
 *   opened (`opening`) before a commit when it is not open. Once nothing
 *   has been committed for `streamLinger` (`waiting.lingering`), the stream
 *   is closed (`releasing`): an idle session holds no file, no lock; a
 *   client calling one tool after another keeps its stream open.
 *
 * `idle` may time out: with an `idleTimeoutMs` in its input (none by
 * default: it rests), `idle.timing` waits `after idleTimeout`, a delay on
 * the actor's clock, and the session then closes itself; its output says
 * it went idle. Anything else the client sends meanwhile (`activity`: a
 * listing, a ping) starts the wait again; a call leaves `idle` altogether.
 * `closing` closes the stream; `closed` is final.
 *
 * Its events are its phases' (`phase.opened`, `phase.sealed`,
 * `phase.complete` with the batch, `phase.dropped`), and `stop`: which call
 * belongs to which phase is data its host keeps (`_session_phases.ts`),
 * for the reason calls nobody is asked about have no actor each (an XState
 * event per call would cost more than the gateway's whole work of a call
 * sent with others: docs/architecture.md).
 *
 * @module
 */

import { assign, fromPromise, setup } from "xstate";
import { phaseMachine, type PhaseOutput } from "../machines/phase_machine.ts";
import type { ConversationStream, StreamStore } from "../stream/stream_store.ts";
import { CallCancellation, type CancellationCause } from "../service/call_cancellation.ts";
import { batchPhaseInput, failBatch, reportFailedCommit } from "./_session_batch.ts";
import type { ReadyCall } from "./_session_phases.ts";
import type { SessionEnd, SessionEvent, SessionInput } from "./session_input.ts";

export type { SessionEnd, SessionEvent, SessionInput } from "./session_input.ts";

/**
 * How long a session keeps its stream open after a commit when its input
 * says nothing else: 2 s. Reopening a file conversation (its folder, the
 * writer lock, the torn-tail check) costs about what a one-call commit
 * does (tests/bench/stream_reopen_bench.ts), so a client calling one tool
 * after another should not pay it per call; an idle session holds nothing.
 */
export const STREAM_LINGER_MS = 2_000;

interface SessionContext {
  readonly input: SessionInput;
  /** How many phases some of whose calls still run (open, or sealed and waiting for them). */
  readonly gathering: number;
  /** The complete phases' batches waiting for their commit, in the order they completed. */
  readonly complete: readonly (readonly ReadyCall[])[];
  /** The batch being committed (opening the stream or in the `phase` machine), in arrival order. */
  readonly committing: readonly ReadyCall[] | undefined;
  readonly stream: ConversationStream | undefined;
  /** Why new calls are refused, once stopped. */
  readonly stopped: string | undefined;
  /** Who or what stopped the session, when its stop said (the running calls' cancellation). */
  readonly stoppedBy: CancellationCause | undefined;
  /** Whether the session closed itself for being idle. */
  readonly wentIdle: boolean;
}

/** Whether nothing of the session is in flight: no call runs, nothing waits for or is in a commit. */
function nothingInFlight(context: SessionContext): boolean {
  return context.gathering === 0 && context.complete.length === 0 &&
    context.committing === undefined;
}

const sessionSetup = setup({
  types: {
    input: {} as SessionInput,
    context: {} as SessionContext,
    events: {} as SessionEvent,
    output: {} as SessionEnd,
  },
  actors: {
    openStream: fromPromise<ConversationStream, { store: StreamStore; conversationId: string }>(
      ({ input }) => input.store.open(input.conversationId),
    ),
    phase: phaseMachine,
    closeStream: fromPromise<void, { stream: ConversationStream | undefined }>(
      async ({ input }) => await input.stream?.close(),
    ),
  },
  delays: {
    // Only `idle.timing` waits for it, entered only when the input sets one.
    idleTimeout: ({ context }) => context.input.idleTimeoutMs ?? 0,
    streamLinger: ({ context }) => context.input.streamLingerMs ?? STREAM_LINGER_MS,
  },
  guards: {
    nothingInFlight: ({ context }) => nothingInFlight(context),
    readyToCommit: ({ context }) => context.complete.length > 0 && context.stream !== undefined,
    readyToOpen: ({ context }) => context.complete.length > 0 && context.stream === undefined,
    idleTimeoutSet: ({ context }) => context.input.idleTimeoutMs !== undefined,
    streamOpen: ({ context }) => context.stream !== undefined,
    commitFailed: (_, output: PhaseOutput) => output.status === "failed",
  },
  actions: {
    countOpened: assign(({ context }) => ({ gathering: context.gathering + 1 })),
    queueBatch: assign(({ context }, params: { batch: readonly ReadyCall[] }) => ({
      gathering: context.gathering - 1,
      complete: [...context.complete, params.batch],
    })),
    countDropped: assign(({ context }) => ({ gathering: context.gathering - 1 })),
    takeNextBatch: assign(({ context }) => ({
      committing: context.complete[0],
      complete: context.complete.slice(1),
    })),
    keepStream: assign((_, stream: ConversationStream) => ({ stream })),
    forgetStream: assign({ stream: undefined }),
    endCommit: assign({ committing: undefined }),
    failCommit: ({ context }, params: { error: unknown }) => {
      failBatch(context.committing ?? [], context.input.session, params.error);
    },
    reportCommitFailure: ({ context }, output: PhaseOutput) =>
      reportFailedCommit(context.input.session, output),
    noteStopped: assign((_, params: { reason: string; cause?: CancellationCause }) => ({
      stopped: params.reason,
      stoppedBy: params.cause,
    })),
    noteIdle: assign({ wentIdle: true }),
    cancelRunningCalls: ({ context }) => {
      const { input, stopped, stoppedBy } = context;
      input.service.cancelSession(
        input.session,
        stoppedBy === undefined ? stopped ?? "stopped" : new CallCancellation(stoppedBy),
      );
    },
    interruptReviews: ({ context }) => {
      const { stopped, stoppedBy } = context;
      context.input.interrupt.abort(
        stoppedBy === undefined
          ? new DOMException(stopped ?? "stopped", "AbortError")
          : new CallCancellation(stoppedBy),
      );
    },
  },
});

const machine = sessionSetup.createMachine({
  id: "session",
  initial: "open",
  context: ({ input }) => ({
    input,
    gathering: 0,
    complete: [],
    committing: undefined,
    stream: undefined,
    stopped: undefined,
    stoppedBy: undefined,
    wentIdle: false,
  }),
  states: {
    open: {
      type: "parallel",
      on: {
        "phase.complete": { actions: { type: "queueBatch", params: ({ event }) => event } },
        "phase.dropped": { actions: "countDropped" },
        "phase.aside": { actions: "countOpened" },
      },
      states: {
        calls: {
          initial: "idle",
          states: {
            idle: {
              initial: "resting",
              states: {
                resting: { always: { guard: "idleTimeoutSet", target: "timing" } },
                timing: {
                  after: { idleTimeout: { target: "#session.closing", actions: "noteIdle" } },
                  on: { activity: { target: "timing", reenter: true } },
                },
              },
              on: {
                "phase.opened": { target: "gathering", actions: "countOpened" },
                stop: {
                  target: "draining",
                  actions: { type: "noteStopped", params: ({ event }) => event },
                },
              },
            },
            gathering: {
              on: {
                "phase.sealed": { target: "sealed" },
                stop: {
                  target: "draining",
                  actions: { type: "noteStopped", params: ({ event }) => event },
                },
              },
            },
            sealed: {
              on: {
                "phase.opened": { target: "gathering", actions: "countOpened" },
                stop: {
                  target: "draining",
                  actions: { type: "noteStopped", params: ({ event }) => event },
                },
              },
              always: { guard: "nothingInFlight", target: "idle" },
            },
            draining: {
              entry: ["cancelRunningCalls", "interruptReviews"],
              always: { guard: "nothingInFlight", target: "#session.closing" },
            },
          },
        },
        commits: {
          initial: "waiting",
          states: {
            waiting: {
              always: [
                { guard: "readyToCommit", target: "committing", actions: "takeNextBatch" },
                { guard: "readyToOpen", target: "opening", actions: "takeNextBatch" },
              ],
              initial: "resting",
              states: {
                resting: { always: { guard: "streamOpen", target: "lingering" } },
                lingering: { after: { streamLinger: "#session.open.commits.releasing" } },
              },
            },
            releasing: {
              invoke: {
                id: "releaseStream",
                src: "closeStream",
                input: ({ context }) => ({ stream: context.stream }),
                onDone: { target: "waiting", actions: "forgetStream" },
                onError: { target: "waiting", actions: "forgetStream" },
              },
            },
            opening: {
              invoke: {
                id: "openStream",
                src: "openStream",
                input: ({ context }) => ({
                  store: context.input.store,
                  conversationId: context.input.conversationId,
                }),
                onDone: {
                  target: "committing",
                  actions: { type: "keepStream", params: ({ event }) => event.output },
                },
                onError: {
                  target: "waiting",
                  actions: [
                    { type: "failCommit", params: ({ event }) => ({ error: event.error }) },
                    "endCommit",
                  ],
                },
              },
            },
            committing: {
              invoke: {
                id: "phase",
                src: "phase",
                input: ({ context }) =>
                  batchPhaseInput(context.committing ?? [], context.stream, context.input),
                onDone: [
                  {
                    guard: { type: "commitFailed", params: ({ event }) => event.output },
                    target: "waiting",
                    actions: [
                      { type: "reportCommitFailure", params: ({ event }) => event.output },
                      "endCommit",
                    ],
                  },
                  { target: "waiting", actions: "endCommit" },
                ],
                onError: {
                  target: "waiting",
                  actions: [
                    { type: "failCommit", params: ({ event }) => ({ error: event.error }) },
                    "endCommit",
                  ],
                },
              },
            },
          },
        },
      },
    },
    closing: {
      invoke: {
        id: "closeStream",
        src: "closeStream",
        input: ({ context }) => ({ stream: context.stream }),
        onDone: { target: "closed" },
        onError: { target: "closed" },
      },
    },
    closed: { type: "final" },
  },
  output: ({ context }) =>
    context.wentIdle ? { reason: "idle" } : { reason: "stopped", message: context.stopped ?? "" },
});

/** The type of {@linkcode sessionMachine}. */
export type SessionMachine = typeof machine;

/**
 * The `session` machine (`open`: `calls` idle → gathering → sealed … →
 * draining, beside `commits` waiting → opening → committing; then
 * `closing` → `closed`). One actor per client session of `spillway serve`.
 */
export const sessionMachine: SessionMachine = machine;
