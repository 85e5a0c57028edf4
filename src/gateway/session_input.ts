/**
 * What a `session` actor (`session_machine.ts`) is started with, the events
 * it takes from its host, and what it ends with.
 *
 * @module
 */

import type { Prompter } from "../machines/prompter.ts";
import type { NoticeSink, PolicyFor } from "../machines/turn_dependencies.ts";
import type { ExecutionService } from "../service/execution_service.ts";
import type { CancellationCause } from "../service/call_cancellation.ts";
import type { StreamStore } from "../stream/stream_store.ts";
import type { PhaseEvent } from "./_session_phases.ts";
import type { StreamEvent } from "../stream/events.ts";

/** What a `session` actor is started with. */
export interface SessionInput {
  /** The client session id (as the service tags its calls). */
  readonly session: string;
  /** Where the session's calls run: `stop` cancels the running ones there. */
  readonly service: ExecutionService;
  /** Where the conversation is recorded. */
  readonly store: StreamStore;
  /** The conversation this session records into (opened before its first commit). */
  readonly conversationId: string;
  /** Each tool's policy, with the client ceiling already applied. */
  readonly policyFor: PolicyFor;
  /** Asks a person under `ask`/`edit`. */
  readonly prompter: Prompter;
  /** Prints the notices of cut responses. */
  readonly noticeSink: NoticeSink;
  /** The names of the tools the client is offered (listed in the answer to an unknown one). */
  readonly available: () => readonly string[];
  /**
   * What the answer to an unknown tool adds: which upstream servers do not
   * answer yet, and why (their tools may be the missing one). Default: nothing.
   */
  readonly unavailableNote?: () => string | undefined;
  /**
   * The event recorded before the session's first calls (its client and
   * protocol revision), asked at each commit: it gives it once, when known.
   * Default: none.
   */
  readonly opening?: () => StreamEvent | undefined;
  /**
   * The events recorded between a batch's requests and responses: what its
   * calls asked their client for while they ran (`tool_call_input`), asked
   * at each commit with the batch's call ids. Default: none.
   */
  readonly inputsOf?: (callIds: readonly string[]) => readonly StreamEvent[];
  /** Aborted on `stop`: interrupts a person reviewing a result. */
  readonly interrupt: AbortController;
  /** How long the session may sit idle before it closes itself, in ms. Default: forever. */
  readonly idleTimeoutMs?: number;
  /**
   * How long the stream stays open after a commit, in ms, before the
   * session releases it (its file and writer lock). Default: `STREAM_LINGER_MS`.
   */
  readonly streamLingerMs?: number;
}

/** The events a `session` actor takes from its host: its phases', and `stop`. */
export type SessionEvent =
  | PhaseEvent
  /**
   * Wind the session down: refuse new calls (saying `reason`), cancel the
   * running ones (recorded in the words of `cause`, when given), then close.
   */
  | { readonly type: "stop"; readonly reason: string; readonly cause?: CancellationCause }
  /**
   * The client sent something other than a call (a listing, a ping, a
   * notification): an idle session's timeout starts again.
   */
  | { readonly type: "activity" };

/** How a session ended: it went idle, or it was stopped (`reason` as given). */
export type SessionEnd =
  | { readonly reason: "idle" }
  | { readonly reason: "stopped"; readonly message: string };
