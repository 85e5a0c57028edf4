/**
 * Private to the replay: how states, sessions and sizes are named on the
 * page (state paths, Mermaid ids along them, short session ids, sizes),
 * and the states of the turn and the phase that the drawing nests in.
 *
 * @module
 */

import { phaseMachine } from "../machines/phase_machine.ts";
import { turnMachine } from "../machines/turn_machine.ts";
import { ByteSize } from "../size/byte_size.ts";
import type { SizeView } from "./inspector_view.ts";
import { mermaidStateId } from "./machine_diagram.ts";
import { stateInvoking } from "./_machine_states.ts";

/** Where the turn runs the phase (`toolPhase`). */
export const TOOL_PHASE: string = stateInvoking(turnMachine, "phase");

/** Where the phase runs the commit (`committing`). */
export const COMMITTING: string = stateInvoking(phaseMachine, "commit");

/** The id of an asked-about call's `toolCall` actor: `call.<index>`. */
export const CALL_ACTOR = /^call\.(\d+)$/;

/**
 * A state value as the path of its first active leaf: `{ execute: "running" }`
 * → `execute`, `running` (a parallel state's first region).
 */
export function statePath(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (typeof value === "object" && value !== null) {
    const [key, inner] = Object.entries(value)[0] ?? [];
    if (key !== undefined) return [key, ...statePath(inner)];
  }
  return [];
}

/** Every active state of a value, as paths: a parallel state's regions each give theirs. */
export function statePaths(value: unknown, prefix: readonly string[] = []): string[][] {
  if (typeof value === "string") return [[...prefix, value]];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    [...prefix, key],
    ...statePaths(inner, [...prefix, key]),
  ]);
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
