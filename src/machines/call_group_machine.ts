/**
 * The `callGroup` machine: the part of a phase that owns a group of
 * `toolCall` actors. It spawns one `toolCall` per call (`executing`), each of
 * which writes its review to the group's {@linkcode SlotBoard}; it tells the
 * phase `group.slotted` once the board is full (`slots.full`), waits
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
import type { Executor } from "../service/executor.ts";
import type {
  IndexedAcknowledgement,
  IndexedCall,
  IndexedDelivery,
  IndexedReview,
} from "./indexed_call.ts";
import type { Prompter } from "./prompter.ts";
import { SlotBoard } from "./slot_board.ts";
import {
  isUnattended,
  type ToolCallInput,
  toolCallMachine,
  type ToolCallOutput,
  unattendedToolCallMachine,
} from "./tool_call_machine.ts";
import type { ToolPolicy } from "./turn_dependencies.ts";
import type { TurnObserver } from "./turn_observer.ts";
import { AbortScope } from "./_abort_scope.ts";

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

type ToolCallRef =
  | ActorRefFrom<typeof toolCallMachine>
  | ActorRefFrom<typeof unattendedToolCallMachine>;

const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** From the group's slot board: every call has written its slot. */
interface SlotsFullEvent {
  readonly type: "slots.full";
}

/** The done event of a spawned toolCall (its id is `call.<index>`). */
interface ToolCallDoneEvent {
  readonly type: `xstate.done.actor.${string}`;
  readonly output: ToolCallOutput;
}

interface CallGroupContext {
  readonly input: CallGroupInput;
  /**
   * The calls' signal: follows `input.signal` with one listener for the whole
   * group, so the turn's signal never collects a listener per call (see
   * `_abort_scope.ts`). Aborted when the group is stopped before its calls
   * were released, which cancels the calls still running.
   */
  readonly scope: AbortScope;
  /** Call index → position in `input.calls`. */
  readonly positions: ReadonlyMap<number, number>;
  readonly callRefs: readonly ToolCallRef[];
  /** Where the calls write their reviews; it sends `slots.full` when the last one is in. */
  readonly slots: SlotBoard;
  /**
   * Deliveries by position, written in place: copying per write would be
   * O(n²) per group, and an `assign` per call would copy the group's snapshot
   * once per call.
   */
  readonly deliveries: Array<IndexedDelivery | undefined>;
  /** How many deliveries are in, counted in place with the array. */
  readonly count: { released: number };
}

const callGroupSetup = setup({
  types: {
    input: {} as CallGroupInput,
    context: {} as CallGroupContext,
    events: {} as GroupReleaseEvent | SlotsFullEvent | ToolCallDoneEvent,
    emitted: {} as GroupSlottedEvent | GroupReleasedEvent,
    output: {} as CallGroupOutput,
  },
  actors: { toolCall: toolCallMachine, unattendedToolCall: unattendedToolCallMachine },
  guards: {
    allSlotsWritten: ({ context }) => context.slots.full,
    allCallsReleased: ({ context }) => context.count.released === context.input.calls.length,
  },
  actions: {
    spawnToolCalls: assign({
      callRefs: ({ context, spawn }) =>
        context.input.calls.map(({ index, call }, position): ToolCallRef => {
          const policy = context.input.policies[position] as ToolPolicy;
          const input: ToolCallInput = {
            index,
            call,
            policy,
            executor: context.input.executor,
            prompter: context.input.prompter,
            signal: context.scope.signal,
            slots: context.slots,
            ...(context.input.observer === undefined ? {} : { observer: context.input.observer }),
          };
          const id = `call.${index}`;
          // Same top-level states and events either way; the unattended one has no substates.
          return isUnattended(policy)
            ? spawn("unattendedToolCall", { id, input })
            : spawn("toolCall", { id, input });
        }),
    }),
    reportSlotted: enqueueActions(({ context, enqueue, self }) => {
      const event: GroupSlottedEvent = { type: "group.slotted", slots: context.slots.reviews() };
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
    storeDelivery: ({ context }, released: ToolCallOutput) => {
      const position = context.positions.get(released.index);
      if (position === undefined || context.deliveries[position] !== undefined) return;
      context.deliveries[position] = {
        index: released.index,
        callId: released.callId,
        delivery: released.delivery,
      };
      context.count.released += 1;
    },
    // A group stopped early (its phase failed, the turn was stopped) cancels
    // the calls still running; their links then release them with a failure.
    cancelCallsWhenStopped: ({ context, self }) => {
      const cancel = () =>
        context.scope.abort(new Error("the tool phase was stopped before its calls were released"));
      void self.subscribe({
        complete: () => {
          if (self.getSnapshot().status !== "done") cancel();
        },
        // Also keeps XState from reporting the error as unhandled: the phase handles it.
        error: cancel,
      });
    },
    stopFollowingSignal: ({ context }) => context.scope.dispose(),
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
  entry: "cancelCallsWhenStopped",
  context: ({ input, self }) => ({
    input,
    scope: new AbortScope(input.signal ?? NEVER_ABORTED),
    positions: new Map(input.calls.map(({ index }, position) => [index, position])),
    callRefs: [],
    slots: new SlotBoard(
      input.calls.map(({ index }) => index),
      () => self.send({ type: "slots.full" }),
    ),
    deliveries: new Array<IndexedDelivery | undefined>(input.calls.length).fill(undefined),
    count: { released: 0 },
  }),
  states: {
    executing: {
      entry: "spawnToolCalls",
      // Also for a group whose calls all wrote their slot while being spawned.
      always: { guard: "allSlotsWritten", target: "awaitingRelease" },
      on: {
        // Re-checks `allSlotsWritten`: the board is read in place.
        "slots.full": {},
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
      entry: ["stopFollowingSignal", "reportReleased"],
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
