/**
 * Private to `_replay_model.ts`: one batch of a replayed run (the calls of
 * one model answer, or one phase of a client session) and its calls, as
 * the facts of the records fill them in.
 *
 * @module
 */

import { toolCallMachine } from "../machines/tool_call_machine.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../review/max_tool_response_batch_bytes.ts";
import type { InspectionFacts } from "./inspection_facts.ts";
import type { BatchView, CallView, SizeView } from "./inspector_view.ts";
import { finalState, initialState, stateEntering, stateInvoking } from "./_machine_states.ts";
import { COMMITTING, idsAlong, shortSession, size } from "./_replay_paths.ts";

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

/** What a batch's call asks of the model around it: its lane's phase, while it runs. */
export interface BatchContext {
  phaseOf(batch: Batch): string[] | undefined;
  /** The upstream connection a tool's calls go through, if an upstream server lists it. */
  upstreamOf(tool: string): string | undefined;
}

export class Call {
  route: string | undefined;
  actorState: string[] | undefined;
  slotWritten = false;
  raw: number | undefined;
  threshold: number | undefined;
  recorded: number | undefined;
  isError = false;
  readonly cutBy = new Set<string>();
  /** When its slot was written, in ms from the recording's start. */
  slotAt: number | undefined;
  /** Why its own actor ended (an asked-about call). */
  ended: string | undefined;

  constructor(readonly index: number, readonly id: string, readonly tool: string) {}

  /** Its state on the toolCall route: its actor's when it has one, else read from the phase's. */
  state(batch: Batch, model: BatchContext): string[] {
    if (this.actorState !== undefined) return this.actorState;
    if (batch.committed !== undefined) return [CALL_ROUTE.released];
    if (model.phaseOf(batch)?.[0] === COMMITTING) return [CALL_ROUTE.awaitingRelease];
    return [this.slotWritten ? CALL_ROUTE.slotWritten : CALL_ROUTE.running];
  }

  view(batch: Batch, model: BatchContext): CallView {
    const state = this.state(batch, model);
    const raw = size(this.raw);
    const threshold = size(this.threshold);
    const recorded = size(this.recorded);
    const ended = this.ended ?? batch.ended;
    const upstream = model.upstreamOf(this.tool);
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
      ...(batch.startedAt === undefined ? {} : { startedAt: batch.startedAt }),
      ...(this.slotAt === undefined ? {} : { slotAt: this.slotAt }),
      ...(batch.endedAt === undefined ? {} : { endedAt: batch.endedAt }),
      ...(ended === undefined ? {} : { ended }),
      ...(upstream === undefined ? {} : { upstream }),
    };
  }
}

export class Batch {
  readonly #calls: Call[];
  capped = false;
  committed: Extract<InspectionFacts, { kind: "committed" }> | undefined;
  /** When its calls were known, and when its commit ended, in ms from the recording's start. */
  startedAt: number | undefined;
  endedAt: number | undefined;
  /** Why its phase ended: the event and guard that took it to its final state. */
  ended: string | undefined;

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

  view(model: BatchContext): BatchView {
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
