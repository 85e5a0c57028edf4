/**
 * The `phase` machine: one batch of calls executed together.
 *
 * It spawns one `toolCall` actor per call, through `callGroup` actors of
 * up to 32 calls each (`executing`; see `call_group_machine.ts` for why), and
 * waits until every slot is written. Then its phase-end actor `capSlots`
 * caps every slot with its tool's `size_threshold` in one place (`capping`).
 * It tells its parent `phase.ended` with the {@linkcode ExecutionResult} and
 * waits (`awaitingRelease`) for the commit's `release`, forwards the
 * acknowledgements to the groups (`releasing`), and ends (`released`) once
 * every call is released, replying `phase.released` with the deliveries.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import {
  type ActorRefFrom,
  type AnyActorRef,
  assign,
  enqueueActions,
  fromPromise,
  setup,
} from "xstate";
import type { Review } from "../review/review.ts";
import type { Executor } from "../service/executor.ts";
import { capSlots, type CapSlotsInput, type ExecutionResult } from "./cap_slots.ts";
import {
  CALL_GROUP_SIZE,
  callGroupMachine,
  type GroupReleasedEvent,
  type GroupSlottedEvent,
} from "./call_group_machine.ts";
import type { IndexedAcknowledgement, IndexedCall, IndexedDelivery } from "./indexed_call.ts";
import type { Prompter } from "./prompter.ts";
import { reasonText } from "../service/reason_text.ts";
import { failedReview } from "./synthesized_reviews.ts";
import type { PolicyFor, ToolPolicy } from "./turn_dependencies.ts";
import type { TurnObserver } from "./turn_observer.ts";

const faultLogger = getLogger(["spillway", "phase"]);

/** What a `phase` actor is started with. */
export interface PhaseInput {
  /** The calls to execute, with their indices in the assistant message. */
  readonly calls: readonly IndexedCall[];
  /** Resolves each tool's policy. */
  readonly policyFor: PolicyFor;
  /** Runs and releases the calls. */
  readonly executor: Executor;
  /** Asks a person under `ask`/`edit`. */
  readonly prompter: Prompter;
  /** Cancels every call of the phase. Default: never. */
  readonly signal?: AbortSignal;
  /** Told when each call starts and when its slot is written. Default: nobody. */
  readonly observer?: TurnObserver;
}

/** What a `phase` actor ends with. */
export interface PhaseOutput {
  /** What each caller received, in call-index order. */
  readonly deliveries: readonly IndexedDelivery[];
}

/** Sent to the parent (and emitted) when the phase end has capped every slot. */
export interface PhaseEndedEvent {
  /** The event type. */
  readonly type: "phase.ended";
  /** The capped reviews and their notices. */
  readonly result: ExecutionResult;
}

/** Sent to `replyTo` (and emitted) once every call is released. */
export interface PhaseReleasedEvent {
  /** The event type. */
  readonly type: "phase.released";
  /** What each caller received, in call-index order. */
  readonly deliveries: readonly IndexedDelivery[];
}

/** The commit's acknowledgements for the phase's parked calls. */
export interface PhaseReleaseEvent {
  /** The event type. */
  readonly type: "release";
  /** One per call; a call without one is released with a failure. */
  readonly acks: readonly IndexedAcknowledgement[];
  /** Who gets `phase.released` (the commit). */
  readonly replyTo?: AnyActorRef;
}

/** The events a `phase` actor accepts. */
export type PhaseEvent = PhaseReleaseEvent | GroupSlottedEvent | GroupReleasedEvent;

type CallGroupRef = ActorRefFrom<typeof callGroupMachine>;

interface PhaseContext {
  readonly input: PhaseInput;
  readonly policies: readonly ToolPolicy[];
  /** Call index → position in `input.calls`. */
  readonly positions: ReadonlyMap<number, number>;
  /** The calls of each group, as positions in `input.calls`. */
  readonly groups: readonly (readonly number[])[];
  /** Call index → group number. */
  readonly groupOf: ReadonlyMap<number, number>;
  readonly groupRefs: readonly CallGroupRef[];
  /** Uncapped reviews by position, written in place (copying per group would be quadratic). */
  readonly slots: Array<Review | undefined>;
  readonly written: number;
  readonly result: ExecutionResult | undefined;
  readonly replyTo: AnyActorRef | undefined;
  /** Deliveries by position, written in place like `slots`. */
  readonly deliveries: Array<IndexedDelivery | undefined>;
  readonly releasedCount: number;
}

/** Splits positions 0…n−1 into consecutive groups of `size`. */
function groupPositions(n: number, size: number): number[][] {
  const groups: number[][] = [];
  for (let start = 0; start < n; start += size) {
    groups.push(Array.from({ length: Math.min(size, n - start) }, (_, i) => start + i));
  }
  return groups;
}

function orderedDeliveries(
  deliveries: readonly (IndexedDelivery | undefined)[],
): IndexedDelivery[] {
  return deliveries
    .filter((delivery): delivery is IndexedDelivery => delivery !== undefined)
    .sort((a, b) => a.index - b.index);
}

const phaseSetup = setup({
  types: {
    input: {} as PhaseInput,
    context: {} as PhaseContext,
    events: {} as PhaseEvent,
    emitted: {} as PhaseEndedEvent | PhaseReleasedEvent,
    output: {} as PhaseOutput,
  },
  actors: {
    callGroup: callGroupMachine,
    capSlots: fromPromise<ExecutionResult, CapSlotsInput>(({ input }) =>
      Promise.resolve(capSlots(input))
    ),
  },
  guards: {
    allSlotsWritten: ({ context }) => context.written === context.input.calls.length,
    allCallsReleased: ({ context }) => context.releasedCount === context.input.calls.length,
  },
  actions: {
    spawnCallGroups: assign({
      groupRefs: ({ context, spawn }) =>
        context.groups.map((positions, group) =>
          spawn("callGroup", {
            id: `group.${group}`,
            input: {
              calls: positions.map((position) => context.input.calls[position] as IndexedCall),
              policies: positions.map((position) => context.policies[position] as ToolPolicy),
              executor: context.input.executor,
              prompter: context.input.prompter,
              ...(context.input.signal === undefined ? {} : { signal: context.input.signal }),
              ...(context.input.observer === undefined ? {} : { observer: context.input.observer }),
            },
          })
        ),
    }),
    storeSlots: assign(({ context }, slotted: GroupSlottedEvent) => {
      let written = context.written;
      for (const { index, review } of slotted.slots) {
        const position = context.positions.get(index);
        if (position === undefined || context.slots[position] !== undefined) continue;
        context.slots[position] = review;
        written += 1;
      }
      return { written };
    }),
    settleCapFault: assign(({ context }, params: { error: unknown }) => {
      const reason = `the phase end failed: ${reasonText(params.error)}`;
      faultLogger.error("{reason}", { reason, error: params.error });
      const slots = [...context.input.calls]
        .sort((a, b) => a.index - b.index)
        .map(({ index, call }) => ({ index, review: failedReview(call, reason) }));
      return { result: { slots, notices: [] } };
    }),
    storeResult: assign((_, result: ExecutionResult) => ({ result })),
    announcePhaseEnded: enqueueActions(({ context, enqueue, self }) => {
      if (context.result === undefined) return;
      const event: PhaseEndedEvent = { type: "phase.ended", result: context.result };
      enqueue.emit(event);
      // A standalone phase (tests, inspection) has no turn to tell.
      if (self._parent) enqueue.sendParent(event);
    }),
    forwardAcknowledgements: enqueueActions(({ context, enqueue }, release: PhaseReleaseEvent) => {
      enqueue.assign({ replyTo: release.replyTo });
      const perGroup: IndexedAcknowledgement[][] = context.groups.map(() => []);
      for (const ack of release.acks) {
        const group = context.groupOf.get(ack.index);
        if (group !== undefined) perGroup[group]?.push(ack);
      }
      context.groupRefs.forEach((ref, group) => {
        enqueue.sendTo(ref, { type: "release", acks: perGroup[group] ?? [] });
      });
    }),
    storeDeliveries: assign(({ context }, released: GroupReleasedEvent) => {
      let releasedCount = context.releasedCount;
      for (const delivery of released.deliveries) {
        const position = context.positions.get(delivery.index);
        if (position === undefined || context.deliveries[position] !== undefined) continue;
        context.deliveries[position] = delivery;
        releasedCount += 1;
      }
      return { releasedCount };
    }),
    reportReleased: enqueueActions(({ context, enqueue }) => {
      const event: PhaseReleasedEvent = {
        type: "phase.released",
        deliveries: orderedDeliveries(context.deliveries),
      };
      enqueue.emit(event);
      if (context.replyTo !== undefined) enqueue.sendTo(context.replyTo, event);
    }),
  },
});

const machine = phaseSetup.createMachine({
  id: "phase",
  initial: "executing",
  context: ({ input }) => {
    const n = input.calls.length;
    const groups = groupPositions(n, CALL_GROUP_SIZE);
    const groupOf = new Map<number, number>();
    groups.forEach((positions, group) => {
      for (const position of positions) {
        groupOf.set((input.calls[position] as IndexedCall).index, group);
      }
    });
    return {
      input,
      policies: input.calls.map(({ call }) => input.policyFor(call.name)),
      positions: new Map(input.calls.map(({ index }, position) => [index, position])),
      groups,
      groupOf,
      groupRefs: [],
      slots: new Array<Review | undefined>(n).fill(undefined),
      written: 0,
      result: undefined,
      replyTo: undefined,
      deliveries: new Array<IndexedDelivery | undefined>(n).fill(undefined),
      releasedCount: 0,
    };
  },
  states: {
    executing: {
      entry: "spawnCallGroups",
      always: { guard: "allSlotsWritten", target: "capping" },
      on: {
        "group.slotted": { actions: { type: "storeSlots", params: ({ event }) => event } },
      },
    },
    capping: {
      invoke: {
        src: "capSlots",
        input: ({ context }) => ({
          calls: context.input.calls,
          slots: context.slots,
          policies: context.policies,
        }),
        onDone: {
          target: "awaitingRelease",
          actions: [
            { type: "storeResult", params: ({ event }) => event.output },
            "announcePhaseEnded",
          ],
        },
        // A broken phase end is a runtime fault. It must not strand parked
        // calls: every slot becomes an error response, committed like any other.
        onError: {
          target: "awaitingRelease",
          actions: [
            { type: "settleCapFault", params: ({ event }) => ({ error: event.error }) },
            "announcePhaseEnded",
          ],
        },
      },
    },
    awaitingRelease: {
      on: {
        release: {
          target: "releasing",
          actions: { type: "forwardAcknowledgements", params: ({ event }) => event },
        },
      },
    },
    releasing: {
      always: { guard: "allCallsReleased", target: "released" },
      on: {
        "group.released": { actions: { type: "storeDeliveries", params: ({ event }) => event } },
      },
    },
    released: {
      type: "final",
      entry: "reportReleased",
    },
  },
  output: ({ context }) => ({ deliveries: orderedDeliveries(context.deliveries) }),
});

/** The type of {@linkcode phaseMachine}. */
export type PhaseMachine = typeof machine;

/**
 * The `phase` machine (states `executing` → `capping` → `awaitingRelease` →
 * `releasing` → `released`). Its parent gets `phase.ended` with the capped
 * reviews; the commit sends `release` and gets `phase.released` back.
 */
export const phaseMachine: PhaseMachine = machine;
