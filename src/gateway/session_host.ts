/**
 * The Host side of one `spillway serve` client session: its `session`
 * actor (`session_machine.ts`), and which of its calls belong to which
 * phase (`_session_phases.ts`), whose changes are the actor's events. The client's calls run in the shared execution
 * service and park there; the session gathers the calls that are in flight
 * together into one phase, and once every one of them is parked, commits
 * that phase through the same phase end (each tool's threshold, or the
 * client ceiling) and commit (the 2 MiB batch ceiling, largest first;
 * record; flush; release) as the runtime's own calls.
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
import {
  type Actor,
  type ActorOptions,
  createActor,
  type InspectionEvent,
  toPromise,
  waitFor,
} from "xstate";
import { reasonText } from "../errors/reason_text.ts";
import type { ToolCall } from "../review/tool_call.ts";
import type { CancellationCause } from "../service/call_cancellation.ts";
import type { CallToolResult } from "../service/sdk.ts";
import { ClientCall } from "./_client_call.ts";
import {
  arrived,
  left,
  NO_PHASES,
  type PhaseStep,
  ready,
  type SessionPhases,
  stepAside,
} from "./_session_phases.ts";
import type { SessionInput } from "./session_input.ts";
import { type SessionEnd, type SessionMachine, sessionMachine } from "./session_machine.ts";

/**
 * Options of {@linkcode SessionHost}: its `session` actor's input (the host
 * makes the interrupt; the stream linger keeps its default), and how the
 * actor runs. When the session closes itself after `idleTimeoutMs`,
 * {@linkcode SessionHost.ended} says `idle`.
 */
export interface SessionHostOptions extends Omit<SessionInput, "interrupt" | "streamLingerMs"> {
  /** Receives the XState inspection events of the session and its phases (`serve --inspect FILE`). */
  readonly inspect?: (event: InspectionEvent) => void;
  /** The clock the session's delays run on (XState's `SimulatedClock` in tests). Default: real time. */
  readonly clock?: NonNullable<ActorOptions<SessionMachine>["clock"]>;
}

const log = getLogger(["spillway", "gateway"]);

/** Runs a session's calls into its `session` actor. */
export class SessionHost {
  readonly #options: SessionHostOptions;
  readonly #actor: Actor<SessionMachine>;
  /** Arrival numbers: the order a phase's calls are recorded in. */
  #arrivals = 0;
  /** Calls that stepped aside into phases of their own (numbered -1, -2, …). */
  #asides = 0;
  /** Which calls in flight belong to which phase (plain data: no actor event per call). */
  #phases: SessionPhases = NO_PHASES;
  /** How the session ended: it went idle (and closed itself), or it was stopped and drained. */
  readonly ended: Promise<SessionEnd>;

  /** Starts the session's actor. */
  constructor(options: SessionHostOptions) {
    this.#options = options;
    const { inspect, clock, ...input } = options;
    this.#actor = createActor(sessionMachine, {
      input: { ...input, interrupt: new AbortController() },
      ...(inspect === undefined ? {} : { inspect }),
      ...(clock === undefined ? {} : { clock }),
    });
    this.ended = toPromise(this.#actor).catch((error: unknown): SessionEnd => {
      // A bug in the session's own machine: said, and the session is over.
      log.error("session {session} failed: {error}", { session: input.session, error });
      return { reason: "stopped", message: reasonText(error) };
    });
    this.#actor.start();
  }

  /** The conversation this session records into. */
  get conversationId(): string {
    return this.#options.conversationId;
  }

  /**
   * Runs one client call: `run` sends it through the service, then it joins
   * a phase and is recorded and released. A call of a tool the service does
   * not have is not run: its phase answers it. Resolves with what the
   * client receives. `aside` is handed the function that moves the call,
   * while it runs, out of its phase into one of its own (it waits on its
   * client: the calls it arrived with are committed without it).
   */
  async call(
    call: ToolCall,
    run: () => Promise<CallToolResult>,
    aside?: (stepOut: () => void) => void,
  ): Promise<CallToolResult> {
    const snapshot = this.#actor.getSnapshot();
    if (snapshot.status !== "active" || snapshot.context.stopped !== undefined) {
      const reason = snapshot.context.stopped ?? "the session is closed";
      return { content: [{ type: "text", text: reason }], isError: true };
    }
    const { service } = this.#options;
    let seq = ++this.#arrivals;
    this.#step(arrived(this.#phases, seq));
    if (!service.has(call.name)) {
      const handle = ClientCall.unanswered(call.id);
      this.#step(ready(this.#phases, seq, { call, handle, unavailable: true }));
      return handle.delivered(await handle.answered);
    }
    let handle: ClientCall | undefined;
    service.whenParked(call.id, {
      resolve: (parked) => {
        handle = ClientCall.parked(service, parked);
        const parkedCall = { id: parked.callId, name: parked.tool, arguments: parked.arguments };
        this.#step(ready(this.#phases, seq, { call: parkedCall, handle, unavailable: false }));
      },
      reject: () => {},
    });
    aside?.(() => {
      if (handle !== undefined || seq < 0) return;
      const own = -++this.#asides;
      this.#step(stepAside(this.#phases, seq, own));
      seq = own;
    });
    let result: CallToolResult;
    try {
      result = await run();
    } finally {
      if (handle === undefined) {
        // It never parked (the service closed under it): nothing waits for it any more.
        service.forget(call.id);
        this.#step(left(this.#phases, seq));
      }
    }
    return handle === undefined ? result : handle.delivered(result);
  }

  /** Keeps the phases after a call's step, and tells the actor what happened to them. */
  #step({ phases, events }: PhaseStep): void {
    this.#phases = phases;
    for (const event of events) this.#actor.send(event);
  }

  /**
   * Says the client sent something other than a call (a listing, a ping):
   * an idle session's timeout starts again. Costs nothing when the session
   * is busy or has no timeout.
   */
  touch(): void {
    const snapshot = this.#actor.getSnapshot();
    if (snapshot.status === "active" && snapshot.matches({ open: { calls: { idle: "timing" } } })) {
      this.#actor.send({ type: "activity" });
    }
  }

  /**
   * Winds the session down: new calls are refused with `reason`, running
   * ones are cancelled (they park as cancelled, so their phase ends and
   * their cancellation is recorded), and a person reviewing a result is
   * interrupted. Calls already parked are committed as usual; then the
   * session closes. See {@linkcode drained}. With a `cause`, the cancelled
   * calls are recorded in its words (unless their `cancellation_response`
   * is configured).
   */
  stop(reason: string, cause?: CancellationCause): void {
    if (this.#actor.getSnapshot().status !== "active") return;
    this.#actor.send(
      cause === undefined ? { type: "stop", reason } : { type: "stop", reason, cause },
    );
  }

  /** Resolves once no call of the session is running, parked or being committed. */
  async drained(): Promise<void> {
    await waitFor(
      this.#actor,
      (snapshot) =>
        snapshot.status !== "active" || snapshot.matches("closing") ||
        snapshot.matches({ open: { calls: "idle" } }),
    ).catch(() => {});
  }

  /** Stops the session (if it was not) and waits until it closed its stream. */
  async close(): Promise<void> {
    this.stop("the session is closed");
    await this.ended;
  }
}
