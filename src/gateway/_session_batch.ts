/**
 * What the `session` machine does with a complete phase's batch: the
 * `phase` it invokes over it (the calls joined, their requests, and what
 * they asked their client for, recorded in front of their responses, one
 * write), or, when that phase cannot run (a
 * bug) or the stream would not open, the not-recorded failure every call of
 * the batch is released with.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { reasonText } from "../errors/reason_text.ts";
import type { PhaseInput, PhaseOutput } from "../machines/phase_machine.ts";
import { notRecordedMessage } from "../machines/synthesized_reviews.ts";
import type { ToolCallRequestEvent } from "../stream/events.ts";
import type { ConversationStream } from "../stream/stream_store.ts";
import { requestsFirst } from "./_requests_first.ts";
import type { ReadyCall } from "./_session_phases.ts";
import type { SessionInput } from "./session_input.ts";

const log = getLogger(["spillway", "gateway"]);

/**
 * The input of the `phase` that commits `batch` into `stream`: no calls of
 * its own, the batch joined (in arrival order), and the session's policy,
 * prompter, notice sink and interruption.
 *
 * @throws {TypeError} without a stream (the session opens it before its first commit)
 */
export function batchPhaseInput(
  batch: readonly ReadyCall[],
  stream: ConversationStream | undefined,
  input: SessionInput,
): PhaseInput {
  if (stream === undefined) throw new TypeError("a session commits only once its stream is open");
  const requests = batch.map(({ call }): ToolCallRequestEvent => ({
    type: "tool_call_request",
    id: call.id,
    name: call.name,
    arguments: call.arguments,
  }));
  const opening = input.opening?.();
  const inputs = input.inputsOf?.(batch.map(({ call }) => call.id)) ?? [];
  const first = [...(opening === undefined ? [] : [opening]), ...requests, ...inputs];
  return {
    calls: [],
    joined: batch.map(({ call, handle, unavailable }) => ({
      call,
      handle,
      ...(unavailable ? { unavailable } : {}),
    })),
    policyFor: input.policyFor,
    available: input.available(),
    unavailableNote: input.unavailableNote?.(),
    prompter: input.prompter,
    stream: requestsFirst(stream, first),
    noticeSink: input.noticeSink,
    signal: input.interrupt.signal,
  };
}

/**
 * Releases every call of `batch` with the not-recorded failure: nothing of
 * it was recorded, so no call is released with content.
 */
export function failBatch(batch: readonly ReadyCall[], session: string, error: unknown): void {
  log.error("committing calls of session {session} failed: {error}", { session, error });
  const reason = reasonText(error);
  for (const { call, handle } of batch) handle.fail(notRecordedMessage(call.id, reason));
}

/** A commit that ran and failed (its store could not record or flush): said in the log. */
export function reportFailedCommit(session: string, output: PhaseOutput): void {
  log.error("session {session}: {error}", { session, error: output.error?.message });
}
