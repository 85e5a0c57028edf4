/**
 * The `turn` machine: one user prompt, driven to the assistant's final
 * answer.
 *
 * `requesting` records the request, asks the provider and records its answer
 * (text and tool calls, flushed). With tool calls, `toolPhase` invokes the
 * `phase`, which runs the batch, caps it, and commits it (records, flushes,
 * releases); then the next cycle is requested. Without tool calls the turn
 * is over: `closing` records `turn_end` and the turn ends `finished`, or
 * `failed` when the provider, the store or a commit failed, the turn was
 * cancelled, or it ran out of cycles.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { assign, fromPromise, setup } from "xstate";
import { SpillwayError } from "../errors/spillway_error.ts";
import type {
  AssistantMessage,
  ConversationMessage,
  Provider,
  ToolSpec,
} from "../provider/provider.ts";
import type { NoticeFact } from "../review/notice.ts";
import type { ToolCall } from "../review/tool_call.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type { Executor } from "../service/executor.ts";
import { utf8Length } from "../size/cap_text.ts";
import type { ConversationStream } from "../stream/stream_store.ts";
import { reasonText } from "../errors/reason_text.ts";
import { asStoreFailure } from "./_store_failure.ts";
import type { IndexedDelivery } from "./call_record.ts";
import { phaseMachine, type PhaseOutput } from "./phase_machine.ts";
import type { Prompter } from "./prompter.ts";
import { recordTurnEnd } from "./record_turn_end.ts";
import { approximateJsonBytes, requestModel } from "./request_model.ts";
import type { Clock, NoticeSink, PolicyFor } from "./turn_dependencies.ts";
import type { TurnObserver } from "./turn_observer.ts";
import { observe } from "./_observe.ts";

/** How many cycles (model requests) a turn may take unless told otherwise. */
export const DEFAULT_MAX_CYCLES = 50;

/** The `turn_end` reason of a cancelled turn. */
export const TURN_CANCELLED_REASON = "the turn was cancelled";

/** What a `turn` actor is started with. */
export interface TurnInput {
  /** Identifies the turn in the stream's events. */
  readonly turnId: string;
  /** The user's prompt. */
  readonly prompt: string;
  /** The model client. */
  readonly provider: Provider;
  /** The tools advertised to the model. */
  readonly tools: readonly ToolSpec[];
  /** The conversation the turn records into. */
  readonly stream: ConversationStream;
  /** Runs and releases tool calls. */
  readonly executor: Executor;
  /** Asks a person under `ask`/`edit`. */
  readonly prompter: Prompter;
  /** Resolves each tool's policy. */
  readonly policyFor: PolicyFor;
  /** Prints cap notices. */
  readonly noticeSink: NoticeSink;
  /** Timestamps events. */
  readonly clock: Clock;
  /** Cancels the turn: running calls get their cancellation response. Default: never. */
  readonly signal?: AbortSignal;
  /** The most model requests the turn may make. Default {@linkcode DEFAULT_MAX_CYCLES}. */
  readonly maxCycles?: number;
  /** The provider view of the conversation before this turn. Default: empty. */
  readonly history?: readonly ConversationMessage[];
  /**
   * Told each answer of the model, each call as it starts and each raw
   * (uncapped) result. Default: nobody.
   */
  readonly observer?: TurnObserver;
}

/** What a `turn` actor ends with. */
export interface TurnOutput {
  /** The turn id. */
  readonly turnId: string;
  /** `finished` when the assistant answered without tool calls, else `failed`. */
  readonly status: "finished" | "failed";
  /** How many model requests were made. */
  readonly cycles: number;
  /** Why the turn failed, as recorded in `turn_end`. */
  readonly reason?: string;
  /** The fault that failed the turn, when one did (`provider_failed`, `not_recorded`, `store_failed`). */
  readonly error?: SpillwayError;
  /** Faults that did not stop the turn: `delivery_mismatch`, one per call. */
  readonly errors: readonly SpillwayError[];
  /** Every cap notice of the turn, in the order they were reported. */
  readonly notices: readonly NoticeFact[];
  /** The provider view after the turn: history, prompt, answers and recorded responses. */
  readonly messages: readonly ConversationMessage[];
  /** The assistant's last text ("" when it never answered). */
  readonly text: string;
}

interface Failure {
  readonly reason: string;
  readonly error?: SpillwayError;
}

interface TurnContext {
  readonly input: TurnInput;
  readonly signal: AbortSignal;
  readonly maxCycles: number;
  readonly messages: readonly ConversationMessage[];
  /** Approximate JSON size of `messages`, kept as messages are added. */
  readonly requestBytes: number;
  readonly cycles: number;
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly notices: readonly NoticeFact[];
  readonly errors: readonly SpillwayError[];
  readonly failure: Failure | undefined;
}

const NEVER_ABORTED: AbortSignal = new AbortController().signal;
const deliveryLogger = getLogger(["spillway", "delivery"]);

/** A delivery that differs from what was recorded: reported, never passed over. */
function mismatchErrors(deliveries: readonly IndexedDelivery[]): SpillwayError[] {
  const errors: SpillwayError[] = [];
  for (const { callId, delivery } of deliveries) {
    if (delivery.kind !== "mismatch") continue;
    const error = new SpillwayError(
      "delivery_mismatch",
      `call ${callId} delivered ${utf8Length(delivery.received)} bytes that differ from the ` +
        `${utf8Length(delivery.expected)} bytes recorded`,
      { callId, expected: delivery.expected, received: delivery.received },
    );
    deliveryLogger.error("{message}", { message: error.message, callId });
    errors.push(error);
  }
  return errors;
}

function toolMessages(recorded: readonly ToolCallResponse[]): ConversationMessage[] {
  return recorded.map(({ id, content, isError, blocks }) => ({
    role: "tool" as const,
    id,
    content,
    isError,
    ...(blocks === undefined ? {} : { blocks }),
  }));
}

const turnSetup = setup({
  types: {
    input: {} as TurnInput,
    context: {} as TurnContext,
    output: {} as TurnOutput,
  },
  actors: {
    requestModel: fromPromise(requestModel),
    phase: phaseMachine,
    recordTurnEnd: fromPromise(recordTurnEnd),
  },
  guards: {
    hasToolCalls: (_, reply: AssistantMessage) => reply.toolCalls.length > 0,
    batchFailed: (_, batch: PhaseOutput) => batch.status === "failed",
    cancelled: ({ context }) => context.signal.aborted,
    cycleLimitReached: ({ context }) => context.cycles >= context.maxCycles,
    turnFailed: ({ context }) => context.failure !== undefined,
  },
  actions: {
    storeReply: assign(({ context }, reply: AssistantMessage) => {
      const message: ConversationMessage = {
        role: "assistant",
        text: reply.text,
        toolCalls: reply.toolCalls,
      };
      return {
        messages: [...context.messages, message],
        requestBytes: context.requestBytes + approximateJsonBytes([message]) - 2,
        cycles: context.cycles + 1,
        text: reply.text,
        toolCalls: reply.toolCalls,
      };
    }),
    tellAssistant: ({ context }, reply: AssistantMessage) => {
      // Called before `storeReply`: `cycles` is still the index of this request.
      observe(context.input.observer, (observer) => observer.assistant?.(reply, context.cycles));
    },
    storeBatch: assign(({ context }, batch: PhaseOutput) => {
      const added = toolMessages(batch.recorded);
      return {
        messages: [...context.messages, ...added],
        requestBytes: context.requestBytes + approximateJsonBytes(added) - 2,
        notices: [...context.notices, ...batch.notices],
        errors: [...context.errors, ...mismatchErrors(batch.deliveries)],
      };
    }),
    fail: assign(({ context }, failure: Failure) => ({ failure: context.failure ?? failure })),
    failRequest: assign(({ context }, params: { error: unknown }) => ({
      failure: context.signal.aborted
        ? { reason: TURN_CANCELLED_REASON }
        : { reason: reasonText(params.error), error: asStoreFailure(params.error) },
    })),
    failClosing: assign(({ context }, params: { error: unknown }) => {
      const error = asStoreFailure(params.error);
      // The turn already failed: keep its reason, keep the closing fault too.
      if (context.failure !== undefined) return { errors: [...context.errors, error] };
      return { failure: { reason: error.message, error } };
    }),
  },
});

const machine = turnSetup.createMachine({
  id: "turn",
  initial: "requesting",
  context: ({ input }) => {
    const maxCycles = input.maxCycles ?? DEFAULT_MAX_CYCLES;
    if (!Number.isSafeInteger(maxCycles) || maxCycles < 1) {
      throw new RangeError(`maxCycles must be a whole number of at least 1, got \`${maxCycles}\``);
    }
    const messages: ConversationMessage[] = [
      ...(input.history ?? []),
      { role: "user", content: input.prompt },
    ];
    return {
      input,
      signal: input.signal ?? NEVER_ABORTED,
      maxCycles,
      messages,
      requestBytes: approximateJsonBytes(messages),
      cycles: 0,
      text: "",
      toolCalls: [],
      notices: [],
      errors: [],
      failure: undefined,
    };
  },
  states: {
    requesting: {
      invoke: {
        id: "requestModel",
        src: "requestModel",
        input: ({ context }) => ({
          turnId: context.input.turnId,
          prompt: context.input.prompt,
          provider: context.input.provider,
          tools: context.input.tools,
          stream: context.input.stream,
          clock: context.input.clock,
          signal: context.signal,
          messages: context.messages,
          requestBytes: context.requestBytes,
          cycle: context.cycles,
          observer: context.input.observer,
        }),
        onDone: [
          {
            guard: { type: "hasToolCalls", params: ({ event }) => event.output },
            target: "toolPhase",
            actions: [
              { type: "tellAssistant", params: ({ event }) => event.output },
              { type: "storeReply", params: ({ event }) => event.output },
            ],
          },
          {
            target: "closing",
            actions: [
              { type: "tellAssistant", params: ({ event }) => event.output },
              { type: "storeReply", params: ({ event }) => event.output },
            ],
          },
        ],
        onError: {
          target: "closing",
          actions: { type: "failRequest", params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    toolPhase: {
      invoke: {
        id: "phase",
        src: "phase",
        input: ({ context }) => ({
          calls: context.toolCalls,
          executor: context.input.executor,
          policyFor: context.input.policyFor,
          available: context.input.tools.map((tool) => tool.name),
          prompter: context.input.prompter,
          stream: context.input.stream,
          noticeSink: context.input.noticeSink,
          signal: context.signal,
          ...(context.input.observer === undefined ? {} : { observer: context.input.observer }),
        }),
        onDone: [
          {
            guard: { type: "batchFailed", params: ({ event }) => event.output },
            target: "closing",
            actions: [
              { type: "storeBatch", params: ({ event }) => event.output },
              {
                type: "fail",
                params: ({ event }) => ({
                  reason: event.output.error?.message ?? "the commit failed",
                  ...(event.output.error === undefined ? {} : { error: event.output.error }),
                }),
              },
            ],
          },
          {
            guard: "cancelled",
            target: "closing",
            actions: [
              { type: "storeBatch", params: ({ event }) => event.output },
              { type: "fail", params: { reason: TURN_CANCELLED_REASON } },
            ],
          },
          {
            guard: "cycleLimitReached",
            target: "closing",
            actions: [
              { type: "storeBatch", params: ({ event }) => event.output },
              {
                type: "fail",
                params: ({ context }) => ({
                  reason: `the turn reached its limit of ${context.maxCycles} cycles`,
                }),
              },
            ],
          },
          {
            target: "requesting",
            actions: { type: "storeBatch", params: ({ event }) => event.output },
          },
        ],
        // A phase that crashed (a bug: faults of tools, prompts and the phase
        // end are answered as error responses). Its calls were released with
        // a failure as it stopped; their requests stay without responses in
        // the stream, as after a crash of the process.
        onError: {
          target: "closing",
          actions: {
            type: "fail",
            params: ({ event }) => ({
              reason: `the tool phase failed: ${reasonText(event.error)}`,
            }),
          },
        },
      },
    },
    closing: {
      invoke: {
        id: "recordTurnEnd",
        src: "recordTurnEnd",
        input: ({ context }) => ({
          stream: context.input.stream,
          turnId: context.input.turnId,
          failureReason: context.failure?.reason,
          at: context.input.clock.now().toISOString(),
        }),
        onDone: [
          { guard: "turnFailed", target: "failed" },
          { target: "finished" },
        ],
        onError: {
          target: "failed",
          actions: { type: "failClosing", params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    finished: { type: "final" },
    failed: { type: "final" },
  },
  output: ({ context }) => ({
    turnId: context.input.turnId,
    status: context.failure === undefined ? "finished" as const : "failed" as const,
    cycles: context.cycles,
    ...(context.failure === undefined ? {} : { reason: context.failure.reason }),
    ...(context.failure?.error === undefined ? {} : { error: context.failure.error }),
    errors: context.errors,
    notices: context.notices,
    messages: context.messages,
    text: context.text,
  }),
});

/** The type of {@linkcode turnMachine}. */
export type TurnMachine = typeof machine;

/**
 * The `turn` machine (states `requesting` → `toolPhase` → `requesting` … →
 * `closing` → `finished` / `failed`); `toolPhase` invokes the `phase`.
 */
export const turnMachine: TurnMachine = machine;
