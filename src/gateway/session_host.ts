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
 * `tool_call_request` per call, then the responses exactly as delivered.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { createActor, toPromise } from "xstate";
import { phaseMachine } from "../machines/phase_machine.ts";
import type { Prompter } from "../machines/prompter.ts";
import type { NoticeSink, PolicyFor } from "../machines/turn_dependencies.ts";
import type { ToolCall } from "../review/tool_call.ts";
import type { ExecutionService } from "../service/execution_service.ts";
import type { ParkedCall } from "../service/parked_call.ts";
import type { CallToolResult } from "../service/sdk.ts";
import type { ToolCallRequestEvent } from "../stream/events.ts";
import type { ConversationStream, StreamStore } from "../stream/stream_store.ts";
import { ParkedCallExecutor } from "./_parked_call_executor.ts";

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
}

/** The calls of one phase: who joined it, and who has parked. */
interface Phase {
  /** Calls that joined, running or parked. */
  readonly members: Set<string>;
  /** Members parked so far, in the order they parked. */
  readonly parked: ParkedCall[];
}

/** Collects a session's calls into phases and commits them. */
export class SessionHost {
  readonly #options: SessionHostOptions;
  readonly #executor: ParkedCallExecutor;
  /** The phase new calls join; `undefined` once sealed (one of its calls parked). */
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
    this.#executor = new ParkedCallExecutor(options.service);
    this.#unsubscribe = options.service.onParked((call) => {
      if (call.session === options.session) this.#parked(call);
    });
  }

  /** The conversation this session records into. */
  get conversationId(): string {
    return this.#options.conversationId;
  }

  /**
   * Runs one client call: through the service, into a phase, recorded,
   * released. Resolves with what the client receives.
   */
  async call(
    callId: string,
    run: () => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    if (this.#stopped !== undefined) {
      return { content: [{ type: "text", text: this.#stopped }], isError: true };
    }
    this.#open ??= { members: new Set(), parked: [] };
    this.#open.members.add(callId);
    this.#phaseOf.set(callId, this.#open);
    let result: CallToolResult;
    try {
      result = await run();
    } finally {
      // A call that never parked (unknown tool, service closed) leaves its phase.
      const phase = this.#phaseOf.get(callId);
      if (phase !== undefined) {
        this.#phaseOf.delete(callId);
        phase.members.delete(callId);
        this.#completeIfParked(phase);
        this.#checkIdle();
      }
    }
    return this.#executor.delivered(callId, result);
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

  #parked(call: ParkedCall): void {
    const phase = this.#phaseOf.get(call.callId) ?? { members: new Set([call.callId]), parked: [] };
    this.#phaseOf.delete(call.callId);
    phase.parked.push(call);
    if (this.#open === phase) this.#open = undefined;
    this.#completeIfParked(phase);
  }

  /** Queues `phase` for its commit once every member is parked. */
  #completeIfParked(phase: Phase): void {
    if (phase.parked.length === 0 || phase.parked.length < phase.members.size) return;
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
    const rank = (call: ParkedCall) => arrival.get(call.callId) ?? arrival.size;
    const batch = phase.parked.toSorted((a, b) => rank(a) - rank(b));
    this.#committing = this.#commit(batch).catch((error) => {
      log.error("committing calls of session {session} failed: {error}", {
        session: this.#options.session,
        error,
      });
      for (const call of batch) this.#failUnreleased(call, error);
    }).finally(() => {
      this.#committing = undefined;
      this.#commitNext();
      this.#checkIdle();
    });
  }

  #failUnreleased(call: ParkedCall, error: unknown): void {
    const message = `the result of call \`${call.callId}\` was not recorded: ${
      error instanceof Error ? error.message : String(error)
    }`;
    try {
      this.#options.service.acknowledge(call.callId, { kind: "fail", message });
    } catch {
      // Already released by the commit before it failed.
    }
  }

  #openStream(): Promise<ConversationStream> {
    this.#stream ??= this.#options.store.open(this.#options.conversationId);
    return this.#stream;
  }

  /**
   * One phase over a batch of parked calls: they join it as calls started
   * elsewhere, and it caps, records, flushes and releases them (printing the
   * notices once they are durable).
   */
  async #commit(batch: readonly ParkedCall[]): Promise<void> {
    const stream = await this.#openStream();
    const calls: ToolCall[] = batch.map((parked) => ({
      id: parked.callId,
      name: parked.tool,
      arguments: parked.arguments,
    }));
    await stream.append(calls.map((call): ToolCallRequestEvent => ({
      type: "tool_call_request",
      id: call.id,
      name: call.name,
      arguments: call.arguments,
    })));
    this.#executor.add(batch);
    const { policyFor, prompter, noticeSink } = this.#options;
    const phase = createActor(phaseMachine, {
      input: {
        calls: [],
        joined: calls.map((call) => ({ call, handle: this.#executor.start(call) })),
        executor: this.#executor,
        policyFor,
        available: [],
        prompter,
        stream,
        noticeSink,
        signal: this.#stop.signal,
      },
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
