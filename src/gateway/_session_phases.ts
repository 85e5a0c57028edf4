/**
 * The phases of one `spillway serve` session as data: which calls joined
 * which phase, which of them are ready for its commit, and which phases are
 * complete. The `session` machine keeps these in its context and replaces
 * them (never edits them) as calls arrive, park and leave; each step costs
 * the same whatever the number of calls in flight (a phase's ready calls are
 * a persistent list, newest first), so a client with thousands of calls in
 * flight does not make each new one slower.
 *
 * A call is known by its arrival number (`seq`, counted by the session):
 * a phase holds the calls that arrived from its first to its last, so
 * arrival order is the order its batch is recorded in.
 *
 * @module
 */

import type { ToolCall } from "../review/tool_call.ts";
import type { ClientCall } from "./_client_call.ts";

/** A call ready for its phase's commit: parked by the service, or of a tool that does not exist. */
export interface ReadyCall {
  /** The call as its client sent it. */
  readonly call: ToolCall;
  /** Its handle: released through the service, or answered by its phase. */
  readonly handle: ClientCall;
  /** Its tool does not exist: the phase answers it. */
  readonly unavailable: boolean;
}

/** The ready calls of a phase, newest first: adding one copies nothing. */
interface ReadyList {
  readonly seq: number;
  readonly ready: ReadyCall;
  readonly rest: ReadyList | undefined;
}

/** One phase, from its first call to its commit. */
export interface GatheredPhase {
  /** The arrival number of its first call. */
  readonly first: number;
  /** The arrival number of the last call that joined it. */
  readonly last: number;
  /** Whether it still takes arrivals: until one of its calls is ready. */
  readonly open: boolean;
  /** How many of its calls are still running (neither ready nor gone). */
  readonly running: number;
  /** Its ready calls. */
  readonly ready: ReadyList | undefined;
}

/** The session's phases: those still gathering or waiting for their calls, and the complete ones. */
export interface SessionPhases {
  /** Phases some of whose calls still run, oldest first; the open one, if any, is the last. */
  readonly gathering: readonly GatheredPhase[];
  /** Phases whose every call is ready, in the order they completed: committed in that order. */
  readonly complete: readonly GatheredPhase[];
}

/** No phase yet. */
export const NO_PHASES: SessionPhases = { gathering: [], complete: [] };

/** Whether a phase takes arrivals now. */
export function hasOpenPhase(phases: SessionPhases): boolean {
  return phases.gathering.at(-1)?.open === true;
}

/** Call `seq` arrived: it joins the open phase, or opens the next one. */
export function arrived(phases: SessionPhases, seq: number): SessionPhases {
  const open = phases.gathering.at(-1);
  if (open?.open === true) {
    const joined = { ...open, last: seq, running: open.running + 1 };
    return { ...phases, gathering: [...phases.gathering.slice(0, -1), joined] };
  }
  const phase: GatheredPhase = { first: seq, last: seq, open: true, running: 1, ready: undefined };
  return { ...phases, gathering: [...phases.gathering, phase] };
}

/**
 * Call `seq` is ready: its phase is sealed (later arrivals open the next
 * one), and complete once none of its calls runs. A call that joined no
 * phase (it should not happen) is a phase of its own.
 */
export function ready(phases: SessionPhases, seq: number, call: ReadyCall): SessionPhases {
  const at = phases.gathering.findIndex(({ first, last }) => first <= seq && seq <= last);
  const phase = phases.gathering[at] ??
    { first: seq, last: seq, open: false, running: 1, ready: undefined };
  return settle(phases, at, {
    ...phase,
    open: false,
    running: phase.running - 1,
    ready: { seq, ready: call, rest: phase.ready },
  });
}

/** Call `seq` left without being ready (it never parked): its phase no longer waits for it. */
export function left(phases: SessionPhases, seq: number): SessionPhases {
  const at = phases.gathering.findIndex(({ first, last }) => first <= seq && seq <= last);
  const phase = phases.gathering[at];
  if (phase === undefined) return phases;
  return settle(phases, at, { ...phase, running: phase.running - 1 });
}

/** Puts `phase` back at `at` (or at the end), complete once none of its calls runs. */
function settle(phases: SessionPhases, at: number, phase: GatheredPhase): SessionPhases {
  const others = at < 0 ? phases.gathering : phases.gathering.toSpliced(at, 1);
  if (phase.running > 0) {
    return { ...phases, gathering: at < 0 ? [...others, phase] : phases.gathering.with(at, phase) };
  }
  // Every call gone and none ready: the phase has nothing to commit.
  if (phase.ready === undefined) return { ...phases, gathering: others };
  return { gathering: others, complete: [...phases.complete, phase] };
}

/** The next complete phase's calls, in arrival order, and the phases without it. */
export function nextBatch(
  phases: SessionPhases,
): { readonly batch: ReadyCall[]; readonly phases: SessionPhases } | undefined {
  const [phase, ...rest] = phases.complete;
  if (phase === undefined) return undefined;
  const calls: { seq: number; ready: ReadyCall }[] = [];
  for (let list = phase.ready; list !== undefined; list = list.rest) calls.push(list);
  calls.sort((a, b) => a.seq - b.seq);
  return { batch: calls.map(({ ready }) => ready), phases: { ...phases, complete: rest } };
}

/** Whether nothing is in flight: no call runs, no phase waits for its commit. */
export function isEmpty(phases: SessionPhases): boolean {
  return phases.gathering.length === 0 && phases.complete.length === 0;
}
