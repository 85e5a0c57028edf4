/**
 * One model request of a turn, as the `requesting` state's actor runs it:
 * record `turn_start` (first cycle) and `chat_request`, ask the provider
 * (its text is passed to the observer as it streams in), record its answer
 * (`chat_response` and one `tool_call_request` per call) and flush, so the
 * calls are durable before any of them runs. A request cancelled mid-answer
 * records the text that had arrived as a `cancelled` `chat_response`, and
 * none of its calls.
 *
 * @module
 */

import { SpillwayError } from "../errors/spillway_error.ts";
import type {
  AssistantMessage,
  ConversationMessage,
  Provider,
  ToolSpec,
} from "../provider/provider.ts";
import { utf8Length } from "../size/cap_text.ts";
import type { StreamEvent } from "../stream/events.ts";
import type { ConversationStream } from "../stream/stream_store.ts";
import { asStoreFailure } from "./_store_failure.ts";
import { reasonText } from "../errors/reason_text.ts";
import type { Clock } from "./turn_dependencies.ts";
import type { TurnObserver } from "./turn_observer.ts";
import { observe } from "./_observe.ts";

/** What one request needs. */
export interface RequestModelInput {
  /** The turn the events belong to. */
  readonly turnId: string;
  /** The user's prompt (recorded in `turn_start`). */
  readonly prompt: string;
  /** The model client. */
  readonly provider: Provider;
  /** The tools advertised to the model. */
  readonly tools: readonly ToolSpec[];
  /** Where the events go. */
  readonly stream: ConversationStream;
  /** Timestamps events. */
  readonly clock: Clock;
  /** Cancels the request (the turn's signal). */
  readonly signal: AbortSignal;
  /** The provider view so far. */
  readonly messages: readonly ConversationMessage[];
  /** Approximate JSON size of `messages` (recorded in `chat_request`). */
  readonly requestBytes: number;
  /** 0 for the first request of the turn, then 1, 2, … */
  readonly cycle: number;
  /** Told the answer's text as it streams in. Default: nobody. */
  readonly observer?: TurnObserver | undefined;
}

/** Approximate JSON size of messages in UTF-8 bytes: what `chat_request` records. */
export function approximateJsonBytes(messages: readonly ConversationMessage[]): number {
  let bytes = 2; // the enclosing brackets
  for (const message of messages) bytes += utf8Length(JSON.stringify(message)) + 1;
  return bytes;
}

/**
 * Runs one request. `signal` is the actor's own (stopping the turn aborts
 * the request), combined with the turn's.
 *
 * @throws {SpillwayError} `provider_failed` when the provider rejects (its
 *   message kept, e.g. `prompt is too long`); `store_failed` when recording fails
 */
export async function requestModel(
  { input, signal }: { input: RequestModelInput; signal: AbortSignal },
): Promise<AssistantMessage> {
  const { stream, clock, turnId, cycle } = input;
  const opening: StreamEvent[] = [];
  if (cycle === 0) {
    opening.push({
      type: "turn_start",
      turn_id: turnId,
      prompt: input.prompt,
      at: clock.now().toISOString(),
    });
  }
  opening.push({
    type: "chat_request",
    turn_id: turnId,
    cycle,
    bytes: input.requestBytes,
    ...(input.provider.model === undefined ? {} : { model: input.provider.model }),
    at: clock.now().toISOString(),
  });
  try {
    await stream.append(opening);
  } catch (error) {
    throw asStoreFailure(error);
  }
  let reply: AssistantMessage;
  let partial = "";
  const cancel = AbortSignal.any([input.signal, signal]);
  try {
    reply = await input.provider.complete({
      messages: input.messages,
      tools: input.tools,
      cycle,
      signal: cancel,
      onText: (delta) => {
        partial += delta;
        observe(input.observer, (observer) => observer.assistantText?.(delta, cycle));
      },
    });
  } catch (error) {
    if (cancel.aborted && partial !== "") await recordCancelledAnswer(input, partial);
    // A provider's own details (what kind of failure) stay readable to the host.
    const details = error instanceof SpillwayError ? error.details : {};
    throw new SpillwayError("provider_failed", reasonText(error), { ...details, cycle }, {
      cause: error,
    });
  }
  // A provider written in plain JavaScript may leave the calls out.
  const toolCalls = reply.toolCalls ?? [];
  const answer: StreamEvent[] = [{
    type: "chat_response",
    turn_id: turnId,
    cycle,
    text: reply.text,
    ...(reply.usage === undefined
      ? {}
      : { input_tokens: reply.usage.inputTokens, output_tokens: reply.usage.outputTokens }),
    at: clock.now().toISOString(),
  }];
  for (const call of toolCalls) {
    answer.push({
      type: "tool_call_request",
      id: call.id,
      name: call.name,
      arguments: call.arguments,
      ...(call.invalidArguments === undefined ? {} : { invalid_arguments: call.invalidArguments }),
    });
  }
  try {
    await stream.append(answer);
    // Calls must be durable before any of them runs. A final answer (no
    // calls) is made durable by the `turn_end` flush that follows at once,
    // before the turn resolves: one fsync fewer per turn.
    if (toolCalls.length > 0) await stream.flush();
  } catch (error) {
    throw asStoreFailure(error);
  }
  return {
    text: reply.text,
    toolCalls,
    ...(reply.usage === undefined ? {} : { usage: reply.usage }),
  };
}

/**
 * What the person saw stream in before the cancel stays in the conversation.
 * The turn fails either way; a store fault here is left to the `turn_end`
 * record that follows, which reports it.
 */
async function recordCancelledAnswer(input: RequestModelInput, text: string): Promise<void> {
  try {
    await input.stream.append([{
      type: "chat_response",
      turn_id: input.turnId,
      cycle: input.cycle,
      text,
      cancelled: true,
      at: input.clock.now().toISOString(),
    }]);
  } catch {
    // See above: the turn_end append meets the same store and reports it.
  }
}
