/**
 * The `callGroup` machine: the part of a phase that owns a group of
 * `toolCall` actors. It spawns one `toolCall` per call (`executing`), tells
 * the phase `group.slotted` once every slot of the group is written, waits
 * for the phase's `release` (`awaitingRelease`), forwards each
 * acknowledgement to its call (`releasing`), and ends (`released`) with the
 * deliveries, told as `group.released`.
 *
 * Why groups: XState copies an actor's children map each time a child is
 * removed, so one actor with n children costs O(n²) when they stop (measured
 * here: ~0.6 s for 1,000 calls, ~3 s for 4,000). A phase splits its calls into
 * groups of {@linkcode CALL_GROUP_SIZE}, which keeps the children maps small:
 * the copies drop from n²/2 to about 16·n + (n/32)²/2.
 *
 * @module
 */

import { type ActorRefFrom, assign, enqueueActions, setup } from "xstate";
import type { Review } from "../review/review.ts";
import type { Executor } from "../service/executor.ts";
import type {
  IndexedAcknowledgement,
  IndexedCall,
  IndexedDelivery,
  IndexedReview,
} from "./indexed_call.ts";
import type { Prompter } from "./prompter.ts";
import {
  type SlotWrittenEvent,
  toolCallMachine,
  type ToolCallOutput,
} from "./tool_call_machine.ts";
import type { ToolPolicy } from "./turn_dependencies.ts";
import type { TurnObserver } from "./turn_observer.ts";

/**
 * Calls per group. Measured with 1,000 and 4,000 calls of 1 KB: groups of 32
 * beat both √n-sized groups and smaller ones (16).
 */
export const CALL_GROUP_SIZE = 32;

/** What a `callGroup` actor is started with. */
export interface CallGroupInput {
  /** The calls of the group, with their indices in the assistant message. */
  readonly calls: readonly IndexedCall[];
  /** Each call's tool policy, parallel to `calls`. */
  readonly policies: readonly ToolPolicy[];
  /** Runs and releases the calls. */
  readonly executor: Executor;
  /** Asks a person under `ask`/`edit`. */
  readonly prompter: Prompter;
  /** Cancels the calls. Default: never. */
  readonly signal?: AbortSignal;
  /** Told when each call starts and when its slot is written. Default: nobody. */
  readonly observer?: TurnObserver;
}

/** Every slot of the group is written (uncapped reviews, in the group's call order). */
export interface GroupSlottedEvent {
  /** The event type. */
  readonly type: "group.slotted";
  /** The reviews, in call-index order. */
  readonly slots: readonly IndexedReview[];
}

/** Every call of the group is released. */
export interface GroupReleasedEvent {
  /** The event type. */
  readonly type: "group.released";
  /** What each caller received, in call-index order. */
  readonly deliveries: readonly IndexedDelivery[];
}

/** The acknowledgements for the group's calls. */
export interface GroupReleaseEvent {
  /** The event type. */
  readonly type: "release";
  /** A call without one is released with a failure. */
  readonly acks: readonly IndexedAcknowledgement[];
}

/** What a `callGroup` actor ends with. */
export interface CallGroupOutput {
  /** What each caller received, in call-index order. */
  readonly deliveries: readonly IndexedDelivery[];
}

type ToolCallRef = ActorRefFrom<typeof toolCallMachine>;

/** The done event of a spawned toolCall (its id is `call.<index>`). */
interface ToolCallDoneEvent {
  readonly type: `xstate.done.actor.${string}`;
  readonly output: ToolCallOutput;
}

interface CallGroupContext {
  readonly input: CallGroupInput;
  /** Call index → position in `input.calls`. */
  readonly positions: ReadonlyMap<number, number>;
  readonly callRefs: readonly ToolCallRef[];
  /** Reviews by position. Written in place: copying per write would be O(n²) per group. */
  readonly slots: Array<Review | undefined>;
  readonly written: number;
  /** Deliveries by position, written in place like `slots`. */
  readonly deliveries: Array<IndexedDelivery | undefined>;
  readonly releasedCount: number;
}

const callGroupSetup = setup({
  types: {
    input: {} as CallGroupInput,
    context: {} as CallGroupContext,
    events: {} as GroupReleaseEvent | SlotWrittenEvent | ToolCallDoneEvent,
    emitted: {} as GroupSlottedEvent | GroupReleasedEvent,
    output: {} as CallGroupOutput,
  },
  actors: { toolCall: toolCallMachine },
  guards: {
    allSlotsWritten: ({ context }) => context.written === context.input.calls.length,
    allCallsReleased: ({ context }) => context.releasedCount === context.input.calls.length,
  },
  actions: {
    spawnToolCalls: assign({
      callRefs: ({ context, spawn }) =>
        context.input.calls.map(({ index, call }, position) =>
          spawn("toolCall", {
            id: `call.${index}`,
            input: {
              index,
              call,
              policy: context.input.policies[position] as ToolPolicy,
              executor: context.input.executor,
              prompter: context.input.prompter,
              ...(context.input.signal === undefined ? {} : { signal: context.input.signal }),
              ...(context.input.observer === undefined ? {} : { observer: context.input.observer }),
            },
          })
        ),
    }),
    storeSlot: assign(({ context }, slot: SlotWrittenEvent) => {
      const position = context.positions.get(slot.index);
      if (position === undefined || context.slots[position] !== undefined) return {};
      context.slots[position] = slot.review;
      return { written: context.written + 1 };
    }),
    reportSlotted: enqueueActions(({ context, enqueue, self }) => {
      const event: GroupSlottedEvent = {
        type: "group.slotted",
        slots: context.input.calls.map(({ index }, position) => ({
          index,
          review: context.slots[position] as Review,
        })),
      };
      enqueue.emit(event);
      // A standalone group (tests, inspection) has no phase to tell.
      if (self._parent) enqueue.sendParent(event);
    }),
    forwardAcknowledgements: enqueueActions(({ context, enqueue }, release: GroupReleaseEvent) => {
      const byIndex = new Map<number, IndexedAcknowledgement>();
      for (const ack of release.acks) byIndex.set(ack.index, ack);
      context.input.calls.forEach(({ index, call }, position) => {
        const ref = context.callRefs[position];
        if (ref === undefined) return;
        const found = byIndex.get(index);
        enqueue.sendTo(ref, {
          type: "release",
          ack: found?.ack ?? {
            kind: "fail",
            message: `the result of call ${call.id} was not acknowledged`,
          },
          recorded: found?.recorded,
        });
      });
    }),
    storeDelivery: assign(({ context }, released: ToolCallOutput) => {
      const position = context.positions.get(released.index);
      if (position === undefined || context.deliveries[position] !== undefined) return {};
      context.deliveries[position] = {
        index: released.index,
        callId: released.callId,
        delivery: released.delivery,
      };
      return { releasedCount: context.releasedCount + 1 };
    }),
    reportReleased: enqueueActions(({ context, enqueue, self }) => {
      const event: GroupReleasedEvent = {
        type: "group.released",
        deliveries: context.deliveries.filter((d): d is IndexedDelivery => d !== undefined),
      };
      enqueue.emit(event);
      // A standalone group (tests, inspection) has no phase to tell.
      if (self._parent) enqueue.sendParent(event);
    }),
  },
});

const machine = callGroupSetup.createMachine({
  id: "callGroup",
  initial: "executing",
  context: ({ input }) => ({
    input,
    positions: new Map(input.calls.map(({ index }, position) => [index, position])),
    callRefs: [],
    slots: new Array<Review | undefined>(input.calls.length).fill(undefined),
    written: 0,
    deliveries: new Array<IndexedDelivery | undefined>(input.calls.length).fill(undefined),
    releasedCount: 0,
  }),
  states: {
    executing: {
      entry: "spawnToolCalls",
      // Also for a group whose calls all wrote their slot while being spawned.
      always: { guard: "allSlotsWritten", target: "awaitingRelease" },
      on: {
        "slot.written": { actions: { type: "storeSlot", params: ({ event }) => event } },
      },
    },
    awaitingRelease: {
      entry: "reportSlotted",
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
        // A released toolCall is done: its done event carries the delivery, so
        // the group needs no second event per call.
        "xstate.done.actor.*": {
          actions: { type: "storeDelivery", params: ({ event }) => event.output },
        },
      },
    },
    released: {
      type: "final",
      entry: "reportReleased",
    },
  },
  output: ({ context }) => ({
    deliveries: context.deliveries.filter((d): d is IndexedDelivery => d !== undefined),
  }),
});

/** The type of {@linkcode callGroupMachine}. */
export type CallGroupMachine = typeof machine;

/**
 * The `callGroup` machine (states `executing` → `awaitingRelease` →
 * `releasing` → `released`): a phase's group of `toolCall` actors.
 */
export const callGroupMachine: CallGroupMachine = machine;
