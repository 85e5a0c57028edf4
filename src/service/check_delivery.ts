/**
 * Recorded equals delivered, decided in one place: what a caller received
 * for a released call, against what the stream records. The runtime's
 * executor, the gateway (for its clients) and the `MockExecutor` all settle
 * a release's {@linkcode DeliveryOutcome} with this function, so the three
 * cannot drift apart.
 *
 * @module
 */

import type { ToolCallResponse } from "../review/tool_call_response.ts";
import { deliveryDifference } from "./delivery_difference.ts";
import type { Acknowledgement, DeliveryOutcome } from "./executor.ts";

/**
 * What the caller of a call released with `ack` got: `failed` with the
 * Host's message when the Host failed the call (nothing to compare: the
 * caller got that error); `mismatch` when `received` differs from
 * `recorded` block by block ({@linkcode deliveryDifference}), or when
 * nothing was recorded to compare it with; otherwise `delivered`, holding
 * the recorded response itself (what the caller received is then garbage
 * at once: a batch releases thousands together).
 *
 * @param ack the Host's decision the call was released with
 * @param recorded what the stream holds for the call (absent when nothing was recorded)
 * @param received what the caller received, as a response
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkDelivery } from "./check_delivery.ts";
 * const recorded = { id: "c1", content: "cut", isError: false };
 * assert.deepEqual(checkDelivery({ kind: "deliver" }, recorded, { ...recorded }), {
 *   kind: "delivered",
 *   response: recorded,
 * });
 * assert.deepEqual(checkDelivery({ kind: "deliver" }, recorded, { ...recorded, content: "raw" }), {
 *   kind: "mismatch",
 *   expected: "cut",
 *   received: "raw",
 * });
 * ```
 */
export function checkDelivery(
  ack: Acknowledgement,
  recorded: ToolCallResponse | undefined,
  received: ToolCallResponse,
): DeliveryOutcome {
  if (ack.kind === "fail") return { kind: "failed", message: ack.message };
  if (recorded === undefined) {
    return { kind: "mismatch", expected: NOTHING_RECORDED, received: received.content };
  }
  const differs = deliveryDifference(recorded, received);
  return differs === undefined
    ? { kind: "delivered", response: recorded }
    : { kind: "mismatch", ...differs };
}

/** The recorded side of a mismatch when nothing was recorded. */
const NOTHING_RECORDED = "(nothing recorded)";
