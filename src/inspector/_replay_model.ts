/**
 * Private to `inspection_replay.ts`: the fold of inspection records into
 * what the page shows (the machines' current states, each batch and call).
 *
 * @module
 */

import { phaseMachine } from "../machines/phase_machine.ts";
import { toolCallMachine } from "../machines/tool_call_machine.ts";
import { turnMachine } from "../machines/turn_machine.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../review/max_tool_response_batch_bytes.ts";
import { ByteSize } from "../size/byte_size.ts";
import type { InspectionFacts } from "./inspection_facts.ts";
import type { InspectionRecord } from "./inspection_recorder.ts";
import type { BatchView, CallView, SizeView } from "./inspector_view.ts";
import { mermaidStateId } from "./machine_diagram.ts";
import { finalState, initialState, stateEntering, stateInvoking } from "./_machine_states.ts";

/**
 * The states of the `toolCall` route that a call without an actor is shown
 * in, found in the machine's definition by what happens there.
 */
const CALL_ROUTE = {
  /** Until its slot is written: where the route starts (`execute`). */
  running: initialState(toolCallMachine),
  /** Its slot written (`reviewSlot`). */
  slotWritten: stateEntering(toolCallMachine, "writeSlot"),
  /** While the commit runs: waiting for the release (`barrierAcknowledge`). */
  awaitingRelease: stateInvoking(toolCallMachine, "awaitRelease"),
  /** Once the commit is done (`released`). */
  released: finalState(toolCallMachine),
} as const;

/** Where the turn runs the phase (`toolPhase`). */
const TOOL_PHASE = stateInvoking(turnMachine, "phase");

/** Where the phase runs the commit (`committing`). */
const COMMITTING = stateInvoking(phaseMachine, "commit");

/** The id of an asked-about call's `toolCall` actor: `call.<index>`. */
export const CALL_ACTOR = /^call\.(\d+)$/;

/** A state value with one active leaf as its path: `{ execute: "running" }` → `execute`, `running`. */
export function statePath(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (typeof value === "object" && value !== null) {
    const [key, inner] = Object.entries(value)[0] ?? [];
    if (key !== undefined) return [key, ...statePath(inner)];
  }
  return [];
}

/** Every Mermaid id along a path: `a`, `a_b`, `a_b_c`. */
export function idsAlong(path: readonly string[]): string[] {
  return path.map((_, i) => mermaidStateId(path.slice(0, i + 1)));
}

/** A session id as the page names it: a UUID by its first eight characters. */
export function shortSession(session: string): string {
  return /^[0-9a-f]{8}-[0-9a-f-]{27}$/i.test(session) ? session.slice(0, 8) : session;
}

/** A size as shown. */
export function size(bytes: number | undefined): SizeView | undefined {
  return bytes === undefined ? undefined : { bytes, text: ByteSize.fromBytes(bytes).human() };
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
export class ReplayModel {
  turn: string[] = [];
  turnStatus: string | undefined;
  readonly batches: Batch[] = [];
  readonly #lanes = new Map<string | undefined, Lane>();
  /** The lane that acted last: its phase and commit are the ones lit. */
  #latest: Lane | undefined;
  #cycles = 0;

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

  apply(record: InspectionRecord): void {
    const lane = this.#lane(record.session);
    if (record.actor !== "turn") this.#latest = lane;
    if (record.facts !== undefined) return this.#applyFacts(lane, record.facts);
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
      lane.phase = finished ? undefined : path;
    } else if (record.actor === "commit") {
      lane.commit = finished ? undefined : path;
    } else {
      const index = Number(CALL_ACTOR.exec(record.actor)?.[1]);
      const call = lane.batch?.call(index);
      if (call !== undefined) call.actorState = path;
    }
  }

  #lane(session: string | undefined): Lane {
    let lane = this.#lanes.get(session);
    if (lane === undefined) {
      lane = new Lane(session);
      this.#lanes.set(session, lane);
    }
    return lane;
  }

  #applyFacts(lane: Lane, facts: InspectionFacts): void {
    const batch = lane.batch;
    switch (facts.kind) {
      case "calls":
        this.#cycles += 1;
        if (facts.calls.length > 0) this.#push(lane, new Batch(this.#cycles, facts.calls));
        return;
      case "joined":
        // A phase of calls started elsewhere: no model answer came first, each phase is a batch.
        this.#push(lane, new Batch(this.batches.length + 1, facts.calls, lane.session));
        return;
      case "slots":
        for (const slot of facts.slots) {
          const call = batch?.call(slot.index, slot.id, slot.tool);
          if (call === undefined) continue;
          call.slotWritten = true;
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

  #push(lane: Lane, batch: Batch): void {
    this.batches.push(batch);
    lane.batch = batch;
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

class Call {
  route: string | undefined;
  actorState: string[] | undefined;
  slotWritten = false;
  raw: number | undefined;
  threshold: number | undefined;
  recorded: number | undefined;
  isError = false;
  readonly cutBy = new Set<string>();

  constructor(readonly index: number, readonly id: string, readonly tool: string) {}

  /** Its state on the toolCall route: its actor's when it has one, else read from the phase's. */
  state(batch: Batch, model: ReplayModel): string[] {
    if (this.actorState !== undefined) return this.actorState;
    if (batch.committed !== undefined) return [CALL_ROUTE.released];
    if (model.phaseOf(batch)?.[0] === COMMITTING) return [CALL_ROUTE.awaitingRelease];
    return [this.slotWritten ? CALL_ROUTE.slotWritten : CALL_ROUTE.running];
  }

  view(batch: Batch, model: ReplayModel): CallView {
    const state = this.state(batch, model);
    const raw = size(this.raw);
    const threshold = size(this.threshold);
    const recorded = size(this.recorded);
    return {
      index: this.index,
      id: this.id,
      tool: this.tool,
      ...(this.route === undefined ? {} : { route: this.route }),
      state: state.join("."),
      active: idsAlong(state),
      ...(raw === undefined ? {} : { raw }),
      ...(threshold === undefined ? {} : { threshold }),
      ...(recorded === undefined ? {} : { recorded }),
      cutBy: [...this.cutBy],
      isError: this.isError,
    };
  }
}

class Batch {
  readonly #calls: Call[];
  capped = false;
  committed: Extract<InspectionFacts, { kind: "committed" }> | undefined;

  constructor(
    readonly cycle: number,
    calls: readonly { id: string; tool: string }[],
    readonly session?: string,
  ) {
    this.#calls = calls.map(({ id, tool }, index) => new Call(index, id, tool));
  }

  /** The call at `index`; one the model's answer did not name (a joined call) is added. */
  call(index: number, id?: string, tool?: string): Call | undefined {
    const known = this.#calls[index];
    if (known !== undefined || id === undefined || tool === undefined) return known;
    const added = new Call(index, id, tool);
    this.#calls[index] = added;
    return added;
  }

  byId(id: string): Call | undefined {
    return this.#calls.find((call) => call?.id === id);
  }

  view(model: ReplayModel): BatchView {
    const calls = this.#calls.filter((call) => call !== undefined);
    const asked = this.capped
      ? size(calls.reduce((sum, call) => sum + (call.threshold ?? 0), 0))
      : undefined;
    const spent = size(this.committed?.budget.spent);
    return {
      cycle: this.cycle,
      ...(this.session === undefined ? {} : { session: shortSession(this.session) }),
      calls: calls.map((call) => call.view(this, model)),
      budget: {
        limit: size(this.committed?.budget.limit ?? MAX_TOOL_RESPONSE_BATCH_BYTES) as SizeView,
        ...(asked === undefined ? {} : { asked }),
        ...(spent === undefined ? {} : { spent }),
        ...(this.committed === undefined ? {} : { commit: this.committed.status }),
      },
      notices: this.committed?.notices.map((notice) => notice.text) ?? [],
    };
  }
}
