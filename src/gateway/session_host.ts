/**
 * The Host side of one `spillway serve` client session. The client's calls
 * run in the shared execution service and park there; this host gathers the
 * calls that are in flight together into one phase, and once every one of
 * them is parked, runs that phase through the same phase end (each tool's
 * threshold, or the client ceiling) and commit (the 2 MiB batch ceiling,
 * largest first; record; flush; release) as the runtime's own calls.
 *
 * Which calls are "in flight together": a phase opens with the first call
 * that arrives when no phase is open, and takes every call that arrives
 * until one of its calls parks. Then it is sealed: later arrivals open the
 * next phase. So a phase ends once the calls that arrived together have
 * ended, and a client that always keeps one call open cannot hold its own
 * results back forever. Complete phases are committed one at a time, in the
 * order they complete.
 *
 * Each session records into its own conversation stream: a
 * `tool_call_request` per call, then the responses exactly as delivered,
 * the whole batch in one append. Every call is recorded, a call of a tool
 * that does not exist too: it never reaches the service, and its phase
 * answers it as the runtime answers an unknown tool in an assistant's
 * message (listing the tools the client is offered).
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { createActor, type InspectionEvent, toPromise } from "xstate";
import { type PhaseInput, phaseMachine } from "../machines/phase_machine.ts";
import type { Prompter } from "../machines/prompter.ts";
import { notRecordedMessage } from "../machines/synthesized_reviews.ts";
import { reasonText } from "../errors/reason_text.ts";
import type { NoticeSink, PolicyFor } from "../machines/turn_dependencies.ts";
import type { ToolCall } from "../review/tool_call.ts";
import type { ExecutionService } from "../service/execution_service.ts";
import type { ParkedCall } from "../service/parked_call.ts";
import type { CallToolResult } from "../service/sdk.ts";
import type { ToolCallRequestEvent } from "../stream/events.ts";
import type { ConversationStream, StreamStore } from "../stream/stream_store.ts";
import { ClientCall } from "./_client_call.ts";
import { requestsFirst } from "./_requests_first.ts";

const log = getLogger(["spillway", "gateway"]);

/** Options of {@linkcode SessionHost}. */
export interface SessionHostOptions {
  /** Where the session's calls run and park. */
  readonly service: ExecutionService;
  /** The client session id (as the service tags the calls). */
  readonly session: string;
  /** Where the conversation is recorded. */
  readonly store: StreamStore;
  /** The conversation this session records into (opened on its first call). */
  readonly conversationId: string;
  /** Each tool's policy, with the client ceiling already applied. */
  readonly policyFor: PolicyFor;
  /** Asks a person under `ask`/`edit`. */
  readonly prompter: Prompter;
  /** Prints the notices of cut responses. */
  readonly noticeSink: NoticeSink;
  /** The names of the tools the client is offered (listed in the answer to an unknown one). */
  readonly available: () => readonly string[];
  /** Receives the XState inspection events of the session's phases (`serve --inspect FILE`). */
  readonly inspect?: (event: InspectionEvent) => void;
}

/** A call ready for its phase's commit: parked by the service, or of a tool that does not exist. */
interface Ready {
  readonly call: ToolCall;
  readonly handle: ClientCall;
  /** Its tool does not exist: the phase answers it. */
  readonly unavailable: boolean;
}

/** The calls of one phase: who joined it, and who is ready. */
interface Phase {
  /** Calls that joined, running or ready. */
  readonly members: Set<string>;
  /** Members ready so far (parked, or answered at once), in that order. */
  readonly ready: Ready[];
}

/** Collects a session's calls into phases and commits them. */
export class SessionHost {
  readonly #options: SessionHostOptions;
  /** The handles of the calls that parked, until their client has its result. */
  readonly #handles = new Map<string, ClientCall>();
  /** The phase new calls join; `undefined` once sealed (one of its calls is ready). */
  #open: Phase | undefined;
  /** Every call's phase, from arrival until it parks or leaves. */
  readonly #phaseOf = new Map<string, Phase>();
  /** Complete phases waiting for the commit in progress. */
  readonly #complete: Phase[] = [];
  #committing: Promise<void> | undefined;
  #stream: Promise<ConversationStream> | undefined;
  readonly #unsubscribe: () => void;
  /** Why new calls are refused, once {@linkcode stop} was called. */
  #stopped: string | undefined;
  /** Aborts the prompts of a person reviewing a result, on {@linkcode stop}. */
  readonly #stop = new AbortController();
  /** Who waits for every call to be committed ({@linkcode drained}). */
  #idle: PromiseWithResolvers<void> | undefined;

  /** Starts listening for the session's parked calls. */
  constructor(options: SessionHostOptions) {
    this.#options = options;
    this.#unsubscribe = options.service.onParked((call) => {
      if (call.session === options.session) this.#parked(call);
    });
  }

  /** The conversation this session records into. */
  get conversationId(): string {
    return this.#options.conversationId;
  }

  /**
   * Runs one client call: `run` sends it through the service, then it joins
   * a phase and is recorded and released. A call of a tool the service does
   * not have is not run: its phase answers it. Resolves with what the
   * client receives.
   */
  async call(call: ToolCall, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
    const callId = call.id;
    if (this.#stopped !== undefined) {
      return { content: [{ type: "text", text: this.#stopped }], isError: true };
    }
    const open = this.#open ??= { members: new Set(), ready: [] };
    open.members.add(callId);
    if (!this.#options.service.has(call.name)) {
      const handle = ClientCall.unanswered(callId);
      this.#ready(open, { call, handle, unavailable: true });
      return handle.delivered(await handle.answered);
    }
    this.#phaseOf.set(callId, open);
    let result: CallToolResult;
    try {
      result = await run();
    } finally {
      // A call that never parked (the service closed) leaves its phase.
      const phase = this.#phaseOf.get(callId);
      if (phase !== undefined) {
        this.#phaseOf.delete(callId);
        phase.members.delete(callId);
        this.#completeIfReady(phase);
        this.#checkIdle();
      }
    }
    const handle = this.#handles.get(callId);
    this.#handles.delete(callId);
    return handle === undefined ? result : handle.delivered(result);
  }

  /**
   * Winds the session down: new calls are refused with `reason`, running
   * ones are cancelled (they park as cancelled, so their phase ends and
   * their cancellation is recorded), and a person reviewing a result is
   * interrupted. Calls already parked are committed as usual. See
   * {@linkcode drained}.
   */
  stop(reason: string): void {
    if (this.#stopped !== undefined) return;
    this.#stopped = reason;
    this.#stop.abort(new DOMException(reason, "AbortError"));
    for (const callId of this.#phaseOf.keys()) this.#options.service.cancel(callId, reason);
  }

  /** Resolves once no call of the session is running, parked or being committed. */
  drained(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    this.#idle ??= Promise.withResolvers();
    return this.#idle.promise;
  }

  /** Stops listening; waits for the phases being committed. */
  async close(): Promise<void> {
    this.#unsubscribe();
    while (this.#committing !== undefined) await this.#committing;
    const stream = await this.#stream?.catch(() => undefined);
    await stream?.close();
  }

  #isIdle(): boolean {
    return this.#phaseOf.size === 0 && this.#complete.length === 0 &&
      this.#committing === undefined;
  }

  #checkIdle(): void {
    if (this.#idle === undefined || !this.#isIdle()) return;
    this.#idle.resolve();
    this.#idle = undefined;
  }

  #parked(parked: ParkedCall): void {
    const { callId, tool, arguments: args } = parked;
    const phase = this.#phaseOf.get(callId) ?? { members: new Set([callId]), ready: [] };
    this.#phaseOf.delete(callId);
    const handle = ClientCall.parked(this.#options.service, parked);
    this.#handles.set(callId, handle);
    this.#ready(phase, {
      call: { id: callId, name: tool, arguments: args },
      handle,
      unavailable: false,
    });
  }

  /** A member of `phase` is ready: the phase is sealed, and complete once all are. */
  #ready(phase: Phase, ready: Ready): void {
    phase.ready.push(ready);
    if (this.#open === phase) this.#open = undefined;
    this.#completeIfReady(phase);
  }

  /** Queues `phase` for its commit once every member is ready. */
  #completeIfReady(phase: Phase): void {
    if (phase.ready.length === 0 || phase.ready.length < phase.members.size) return;
    if (this.#open === phase) this.#open = undefined;
    this.#complete.push(phase);
    this.#commitNext();
  }

  /** Commits the next complete phase, unless a commit is running. */
  #commitNext(): void {
    if (this.#committing !== undefined) return;
    const phase = this.#complete.shift();
    if (phase === undefined) return;
    // Recorded in arrival order, as an assistant message orders its calls.
    const arrival = new Map([...phase.members].map((id, index) => [id, index]));
    const rank = ({ call }: Ready) => arrival.get(call.id) ?? arrival.size;
    const batch = phase.ready.toSorted((a, b) => rank(a) - rank(b));
    this.#committing = this.#commit(batch).catch((error) => {
      log.error("committing calls of session {session} failed: {error}", {
        session: this.#options.session,
        error,
      });
      const reason = reasonText(error);
      for (const { call, handle } of batch) handle.fail(notRecordedMessage(call.id, reason));
    }).finally(() => {
      this.#committing = undefined;
      this.#commitNext();
      this.#checkIdle();
    });
  }

  #openStream(): Promise<ConversationStream> {
    this.#stream ??= this.#options.store.open(this.#options.conversationId);
    return this.#stream;
  }

  /**
   * One phase over a batch of ready calls: they join it as calls started
   * elsewhere (a call of a tool that does not exist, as one to answer), and
   * it caps, records (their requests first), flushes and releases them
   * (printing the notices once they are durable), as the `phase` machine:
   * the same machine the runtime's own turns run, so `serve --inspect` and
   * `spillway inspect` show what runs.
   */
  async #commit(batch: readonly Ready[]): Promise<void> {
    const stream = await this.#openStream();
    const requests = batch.map(({ call }): ToolCallRequestEvent => ({
      type: "tool_call_request",
      id: call.id,
      name: call.name,
      arguments: call.arguments,
    }));
    const { policyFor, prompter, noticeSink, available } = this.#options;
    const input: PhaseInput = {
      calls: [],
      joined: batch.map(({ call, handle, unavailable }) => ({
        call,
        handle,
        ...(unavailable ? { unavailable } : {}),
      })),
      policyFor,
      available: available(),
      prompter,
      stream: requestsFirst(stream, requests),
      noticeSink,
      signal: this.#stop.signal,
    };
    const { inspect } = this.#options;
    const phase = createActor(phaseMachine, {
      id: "phase",
      ...(inspect === undefined ? {} : { inspect }),
      input,
    });
    const output = await toPromise(phase.start());
    if (output.status === "failed") {
      log.error("session {session}: {error}", {
        session: this.#options.session,
        error: output.error?.message,
      });
    }
  }
}
