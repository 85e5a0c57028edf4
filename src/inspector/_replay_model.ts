/**
 * Private to `inspection_replay.ts`: the fold of inspection records into
 * what the page shows: the machines' current states (the turn's, each
 * lane's phase and commit, each client session's and upstream
 * connection's), each batch and call, with their times and why they ended.
 *
 * @module
 */

import type { AnyStateMachine } from "xstate";
import { sessionMachine } from "../gateway/session_machine.ts";
import { phaseMachine } from "../machines/phase_machine.ts";
import { toolCallMachine } from "../machines/tool_call_machine.ts";
import { upstreamConnectionMachine } from "../service/upstream/upstream_connection_machine.ts";
import type { InspectionFacts } from "./inspection_facts.ts";
import type { InspectionRecord } from "./inspection_recorder.ts";
import type { ClientView, UpstreamView } from "./inspector_view.ts";
import { Batch, type BatchContext } from "./_replay_batch.ts";
import {
  CALL_ACTOR,
  COMMITTING,
  idsAlong,
  shortSession,
  statePath,
  statePaths,
  TOOL_PHASE,
} from "./_replay_paths.ts";
import { takenTransition } from "./_taken_transition.ts";

/** The machines whose actors a record may be of, by their config id. */
export const LONG_LIVED = {
  session: sessionMachine,
  upstreamConnection: upstreamConnectionMachine,
};

/** An actor of a long-lived machine (a client session, an upstream connection), as last seen. */
class Tracked {
  state: unknown;
  status: string | undefined;
  name: string | undefined;
  /** The tools its server listed (an upstream connection). */
  tools: readonly string[] = [];
  batches = 0;
  calls = 0;
  constructor(readonly machine: string, readonly session: string | undefined) {}

  view(): ClientView & UpstreamView {
    return {
      session: shortSession(this.session ?? ""),
      name: this.name ?? this.session ?? "",
      ...(this.name === undefined ? {} : { conversation: this.name }),
      state: statePath(this.state).join("."),
      active: statePaths(this.state).flatMap((path) => idsAlong(path).slice(-1)),
      ...(this.status === undefined ? {} : { status: this.status }),
      batches: this.batches,
      calls: this.calls,
    };
  }
}

/**
 * One line of work: a `query` turn's phases (one at a time), or one client
 * session's phases in `spillway serve` (sessions run side by side).
 */
class Lane {
  phase: string[] | undefined;
  commit: string[] | undefined;
  /** The lane's latest batch. */
  batch: Batch | undefined;

  constructor(readonly session: string | undefined) {}
}

/** The fold: what the records so far say. */
export class ReplayModel implements BatchContext {
  turn: string[] = [];
  turnStatus: string | undefined;
  readonly batches: Batch[] = [];
  readonly #lanes = new Map<string | undefined, Lane>();
  /** The actors of long-lived machines, by session id. */
  readonly #tracked = new Map<string, Tracked>();
  /** The lane that acted last: its phase and commit are the ones lit. */
  #latest: Lane | undefined;
  #cycles = 0;
  /** The time of the first record that has one: times are shown from it. */
  #start: number | undefined;

  /** Whether the records came from `spillway serve` (phases of client sessions, no turn). */
  get gateway(): boolean {
    return this.#latest?.session !== undefined;
  }

  /** The phase that acted last, while it runs. */
  get phase(): string[] | undefined {
    return this.#latest?.phase;
  }

  /** The commit that acted last, while it runs. */
  get commit(): string[] | undefined {
    return this.#latest?.commit;
  }

  /** Whether `batch` is the latest of its lane. */
  latest(batch: Batch): boolean {
    return this.#lanes.get(batch.session)?.batch === batch;
  }

  /** The phase of `batch`'s lane, while it runs (only the lane's latest batch has one). */
  phaseOf(batch: Batch): string[] | undefined {
    return this.latest(batch) ? this.#lanes.get(batch.session)?.phase : undefined;
  }

  /**
   * The upstream connection a tool's calls go through, by the tool's name as
   * its server lists it (a tool the config renames is not matched).
   */
  upstreamOf(tool: string): string | undefined {
    for (const tracked of this.#tracked.values()) {
      if (tracked.machine !== "session" && tracked.tools.includes(tool)) return tracked.name;
    }
    return undefined;
  }

  /** The client sessions, in order of appearance. */
  clients(): ClientView[] {
    return [...this.#tracked.values()].filter((t) => t.machine === "session").map((t) => {
      const { name: _name, ...client } = t.view();
      return client;
    });
  }

  /** The upstream connections, in order of appearance. */
  upstreams(): UpstreamView[] {
    return [...this.#tracked.values()].filter((t) => t.machine !== "session").map((t) => {
      const { name, state, active, status } = t.view();
      return { name, state, active, ...(status === undefined ? {} : { status }) };
    });
  }

  apply(record: InspectionRecord): void {
    if (record.time !== undefined) this.#start ??= record.time;
    if (this.#applyTracked(record)) return;
    const lane = this.#lane(record.session);
    if (record.actor !== "turn") this.#latest = lane;
    if (record.facts !== undefined) return this.#applyFacts(lane, record);
    if (record.type === "@xstate.actor") {
      // A new life: a phase starts a batch's work, a commit its recording.
      if (record.actor === "phase") lane.phase = [];
      else lane.commit = [];
      return;
    }
    const path = statePath(record.state);
    const finished = record.status !== undefined && record.status !== "active";
    if (record.actor === "turn") {
      this.turn = path;
      this.turnStatus = record.status;
    } else if (record.actor === "phase") {
      if (finished && lane.batch !== undefined && lane.phase !== undefined) {
        lane.batch.ended = endedBy("phase", phaseMachine, lane.phase, record.event, path);
      }
      lane.phase = finished ? undefined : path;
    } else if (record.actor === "commit") {
      lane.commit = finished ? undefined : path;
    } else {
      const index = Number(CALL_ACTOR.exec(record.actor)?.[1]);
      const call = lane.batch?.call(index);
      if (call === undefined) return;
      if (finished && call.actorState !== undefined) {
        call.ended = endedBy("toolCall", toolCallMachine, call.actorState, record.event, path);
      }
      call.actorState = path;
    }
  }

  /** Applies a record of a client session's or upstream connection's actor; `false` for others. */
  #applyTracked(record: InspectionRecord): boolean {
    if (record.sessionId === undefined) return false;
    if (record.type === "@xstate.actor" && record.machine !== undefined) {
      if (!(record.machine in LONG_LIVED)) return false;
      this.#tracked.set(record.sessionId, new Tracked(record.machine, record.session));
      return true;
    }
    const tracked = this.#tracked.get(record.sessionId);
    if (tracked === undefined) return false;
    const names = record.names;
    if (names !== undefined) tracked.name = names.conversationId ?? names.name;
    if (record.facts?.kind === "tools") tracked.tools = record.facts.tools;
    if (record.type === "@xstate.snapshot") {
      tracked.state = record.state;
      tracked.status = record.status;
    }
    return true;
  }

  #lane(session: string | undefined): Lane {
    let lane = this.#lanes.get(session);
    if (lane === undefined) {
      lane = new Lane(session);
      this.#lanes.set(session, lane);
    }
    return lane;
  }

  #at(record: InspectionRecord): number | undefined {
    return record.time === undefined || this.#start === undefined
      ? undefined
      : record.time - this.#start;
  }

  #applyFacts(lane: Lane, record: InspectionRecord): void {
    const facts = record.facts as InspectionFacts;
    const batch = lane.batch;
    switch (facts.kind) {
      case "calls":
        this.#cycles += 1;
        if (facts.calls.length > 0) this.#push(lane, new Batch(this.#cycles, facts.calls), record);
        return;
      case "joined":
        // A phase of calls started elsewhere: no model answer came first, each phase is a batch.
        this.#push(lane, new Batch(this.batches.length + 1, facts.calls, lane.session), record);
        return;
      case "slots":
        for (const slot of facts.slots) {
          const call = batch?.call(slot.index, slot.id, slot.tool);
          if (call === undefined) continue;
          call.slotWritten = true;
          call.slotAt = this.#at(record);
          call.raw = slot.bytes;
          call.isError = slot.isError;
        }
        return;
      case "capped":
        for (const capped of facts.calls) {
          const call = batch?.call(capped.index, capped.id, capped.tool);
          if (call === undefined) continue;
          call.slotWritten = true;
          call.route = capped.route;
          call.raw = capped.rawBytes;
          call.threshold = capped.bytes;
        }
        if (batch !== undefined) batch.capped = true;
        return;
      case "committed":
        if (batch === undefined) return;
        batch.committed = facts;
        batch.endedAt = this.#at(record);
        for (const recorded of facts.calls) {
          const call = batch.byId(recorded.id);
          if (call === undefined) continue;
          call.recorded = recorded.bytes;
          call.isError = recorded.isError;
        }
        for (const notice of facts.notices) batch.byId(notice.callId)?.cutBy.add(notice.cause);
        return;
    }
  }

  #push(lane: Lane, batch: Batch, record: InspectionRecord): void {
    batch.startedAt = this.#at(record);
    this.batches.push(batch);
    lane.batch = batch;
    // A client session's counts: its lane is named by the session, as its actor's records are.
    for (const tracked of this.#tracked.values()) {
      if (tracked.machine !== "session" || tracked.session !== lane.session) continue;
      tracked.batches += 1;
      tracked.calls += batch.view(this).calls.length;
    }
  }

  /**
   * The lit ids of the turn's diagram: its state, and inside `toolPhase` the
   * phase's and commit's. A gateway's phases run in no turn: they are lit
   * inside `toolPhase`, where a turn runs them, while one runs.
   */
  active(): string[] {
    if (this.turnStatus !== undefined && this.turnStatus !== "active") return idsAlong(this.turn);
    const path = this.turn.length === 0 && this.phase !== undefined ? [TOOL_PHASE] : [
      ...this.turn,
    ];
    if (path.length === 1 && path[0] === TOOL_PHASE && this.phase !== undefined) {
      path.push(...this.phase);
      if (this.phase.length === 1 && this.phase[0] === COMMITTING && this.commit !== undefined) {
        path.push(...this.commit);
      }
    }
    return idsAlong(path);
  }
}

/** `phase: committing → released on xstate.done.actor.commit, then always [committedAndReleased]`. */
function endedBy(
  name: string,
  machine: AnyStateMachine,
  from: readonly string[],
  event: string | undefined,
  to: readonly string[],
): string | undefined {
  if (event === undefined) return undefined;
  const taken = takenTransition(machine, from, event, to);
  const move = `${name}: ${from.join(".")} → ${to.join(".")} on ${event}`;
  if (taken === undefined) return move;
  const guard = taken.guard === undefined ? "" : ` [${taken.guard}]`;
  return taken.always === true ? `${move}, then always${guard}` : `${move}${guard}`;
}
