/**
 * A call parked on its barrier: what the execution service hands to the Host
 * once a tool call has ended (executed, lost, cancelled or failed), while the
 * caller still waits for the Host's acknowledgement.
 *
 * @module
 */

import type { BarrierKind, ExecutionOutcome } from "./executor.ts";

/** One call waiting on its barrier for {@linkcode ExecutionService.acknowledge}. */
export interface ParkedCall {
  /** The caller's `spillway/callId`, or `ext_<n>` for a caller that sent none. */
  readonly callId: string;
  /** The tool's exported name (as the caller asked for it). */
  readonly tool: string;
  /** The arguments the caller sent. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /**
   * Whether the call came from outside the runtime: a `spillway serve` client,
   * or any caller without `spillway/callId` (whose id the service generated).
   */
  readonly external: boolean;
  /** The client session of an external call made through `spillway serve`. */
  readonly session?: string;
  /** The barrier the call is parked on, from the service's `barrierFor`. */
  readonly barrier: BarrierKind;
  /** How the call ended. */
  readonly outcome: ExecutionOutcome;
  /** When the call reached the service (the service clock, ms). */
  readonly startedAt: number;
  /** When the call was parked (the service clock, ms). */
  readonly parkedAt: number;
}
