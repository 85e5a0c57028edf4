/**
 * Which of a `spillway serve` session's calls belong to which phase: the
 * calls that arrived together, kept as plain data by the session's host,
 * for the reason calls nobody is asked about have no actor each (an XState
 * event costs more than such a call may: docs/architecture.md, "The
 * gateway's session"). Each step of a call (its arrival, its park, its
 * leaving) replaces the data, never edits it, and costs the same whatever
 * the number of calls in flight (a phase's ready calls are a persistent
 * list, newest first); it returns what happened to the session's phases,
 * as the `session` machine's events: a phase opened, sealed, completed (its
 * batch, in arrival order) or dropped (its calls all left without parking),
 * or a call stepped aside into a phase of its own (it waits on its client).
 *
 * A call is known by its arrival number (`seq`, counted by the host): a
 * phase holds the calls that arrived from its first to its last, so arrival
 * order is the order its batch is recorded in.
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

/** What happened to the session's phases: the `session` machine's events of them. */
export type PhaseEvent =
  /** A call arrived while no phase was open: it opened one, and later arrivals join it. */
  | { readonly type: "phase.opened" }
  /** The open phase takes no more calls (one of its calls is ready, or none is left). */
  | { readonly type: "phase.sealed" }
  /** Every call of a phase ended, some of them ready: its batch, in arrival order, to commit. */
  | { readonly type: "phase.complete"; readonly batch: readonly ReadyCall[] }
  /** Every call of a phase left without parking: nothing to commit. */
  | { readonly type: "phase.dropped" }
  /**
   * A running call stepped out of its phase into one of its own, sealed
   * (it waits on its client for input): one more phase is gathering.
   */
  | { readonly type: "phase.aside" };

/** The ready calls of a phase, newest first: adding one copies nothing. */
interface ReadyList {
  readonly seq: number;
  readonly ready: ReadyCall;
  readonly rest: ReadyList | undefined;
}

/** One phase, from its first call until every call of it ended. */
interface GatheredPhase {
  /** The arrival numbers of its first call and of the last one that joined it. */
  readonly first: number;
  readonly last: number;
  /** Whether it still takes arrivals. */
  readonly open: boolean;
  /** How many of its calls are still running (neither ready nor gone). */
  readonly running: number;
  readonly ready: ReadyList | undefined;
}

/** The phases some of whose calls still run, oldest first; the open one, if any, is the last. */
export interface SessionPhases {
  readonly gathering: readonly GatheredPhase[];
}

/** The phases after a step, and what happened to them. */
export interface PhaseStep {
  readonly phases: SessionPhases;
  readonly events: readonly PhaseEvent[];
}

/** No phase yet. */
export const NO_PHASES: SessionPhases = { gathering: [] };

const OPENED: PhaseEvent = { type: "phase.opened" };
const SEALED: PhaseEvent = { type: "phase.sealed" };
const DROPPED: PhaseEvent = { type: "phase.dropped" };
const ASIDE: PhaseEvent = { type: "phase.aside" };

/** Whether a phase takes arrivals now. */
export function hasOpenPhase(phases: SessionPhases): boolean {
  return phases.gathering.at(-1)?.open === true;
}

/** Whether no call of the session runs. */
export function isEmpty(phases: SessionPhases): boolean {
  return phases.gathering.length === 0;
}

/** Call `seq` arrived: it joins the open phase, or opens the next one. */
export function arrived(phases: SessionPhases, seq: number): PhaseStep {
  const { gathering } = phases;
  const open = gathering.at(-1);
  if (open?.open === true) {
    const joined = { ...open, last: seq, running: open.running + 1 };
    return { phases: { gathering: gathering.with(-1, joined) }, events: [] };
  }
  const phase: GatheredPhase = { first: seq, last: seq, open: true, running: 1, ready: undefined };
  return { phases: { gathering: [...gathering, phase] }, events: [OPENED] };
}

/**
 * Call `seq` is ready: its phase is sealed (later arrivals open the next
 * one), and complete once none of its calls runs. A call that joined no
 * phase (it should not happen) is a phase of its own.
 */
export function ready(phases: SessionPhases, seq: number, call: ReadyCall): PhaseStep {
  const at = indexOf(phases, seq);
  const phase = phases.gathering[at] ??
    { first: seq, last: seq, open: false, running: 1, ready: undefined };
  const next = {
    ...phase,
    open: false,
    running: phase.running - 1,
    ready: { seq, ready: call, rest: phase.ready },
  };
  return settle(phases, at, next, phase.open ? [SEALED] : []);
}

/** Call `seq` left without being ready (it never parked): its phase no longer waits for it. */
export function left(phases: SessionPhases, seq: number): PhaseStep {
  const at = indexOf(phases, seq);
  const phase = phases.gathering[at];
  if (phase === undefined) return { phases, events: [] };
  const next = { ...phase, running: phase.running - 1 };
  // An open phase with no call left has nothing to take further calls for.
  const sealed = phase.open && next.running === 0;
  return settle(phases, at, sealed ? { ...next, open: false } : next, sealed ? [SEALED] : []);
}

/**
 * Call `seq` waits on its client (a 2026-07-28 call's input round, which
 * may take minutes): it leaves its phase, whose other calls are committed
 * without it, for a sealed phase of its own, where it is known as `aside`
 * (a number no arrival has: negative).
 */
export function stepAside(phases: SessionPhases, seq: number, aside: number): PhaseStep {
  const leaving = left(phases, seq);
  const own: GatheredPhase = {
    first: aside,
    last: aside,
    open: false,
    running: 1,
    ready: undefined,
  };
  const { gathering } = leaving.phases;
  const last = gathering.at(-1);
  // The open phase, if any, stays the last.
  const next = last?.open === true ? [...gathering.slice(0, -1), own, last] : [...gathering, own];
  // Counted first: the session never sees a moment with nothing in flight.
  return { phases: { gathering: next }, events: [ASIDE, ...leaving.events] };
}

function indexOf(phases: SessionPhases, seq: number): number {
  return phases.gathering.findIndex(({ first, last }) => first <= seq && seq <= last);
}

/** Puts `phase` back at `at` (or, at `-1`, at the end), or lets it go once none of its calls runs. */
function settle(
  phases: SessionPhases,
  at: number,
  phase: GatheredPhase,
  events: PhaseEvent[],
): PhaseStep {
  const { gathering } = phases;
  if (phase.running > 0) {
    return {
      phases: { gathering: at < 0 ? [...gathering, phase] : gathering.with(at, phase) },
      events,
    };
  }
  const rest = { gathering: at < 0 ? gathering : gathering.toSpliced(at, 1) };
  if (phase.ready === undefined) return { phases: rest, events: [...events, DROPPED] };
  return {
    phases: rest,
    events: [...events, { type: "phase.complete", batch: batchOf(phase.ready) }],
  };
}

/** A phase's ready calls in arrival order. */
function batchOf(list: ReadyList): ReadyCall[] {
  const calls: ReadyList[] = [];
  for (let entry: ReadyList | undefined = list; entry !== undefined; entry = entry.rest) {
    calls.push(entry);
  }
  return calls.sort((a, b) => a.seq - b.seq).map(({ ready }) => ready);
}
