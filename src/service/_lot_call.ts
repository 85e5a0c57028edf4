/**
 * A call in the parking lot, as a value of its state in the `parkedCall`
 * chart (`parked_call_machine.ts`): a union whose every member carries
 * exactly what its state needs, and nothing optional.
 *
 * @module
 */

import type { CallerSide } from "./_hand_over.ts";
import type { Acknowledgement } from "./executor.ts";
import type { ParkedCall } from "./parked_call.ts";
import type { SourceCallEnd } from "./source_call.ts";

/** `running`: its source works on it. */
export interface RunningCall extends CallerSide {
  readonly state: "running";
  readonly controller: AbortController;
}

/** `parked`: on its barrier, waiting for the Host. */
export interface ParkedLotCall extends CallerSide {
  readonly state: "parked";
  readonly parked: ParkedCall;
  readonly end: SourceCallEnd;
}

/** `acknowledged`: the Host decided; its delivery slice has not come yet. */
export interface AcknowledgedCall extends CallerSide {
  readonly state: "acknowledged";
  readonly callId: string;
  readonly end: SourceCallEnd;
  readonly ack: Acknowledgement;
}

/** A call in the lot (a `released` one has left it). */
export type LotCall = RunningCall | ParkedLotCall | AcknowledgedCall;
