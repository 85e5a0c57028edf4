/**
 * The executor channel: what the runtime's executor and the execution
 * service say to each other besides `tools/call`, in-band on the same MCP
 * connection, so that the executor reaches the service through that one
 * connection and nothing else. Four notifications, all under spillway's own
 * `notifications/spillway/` prefix:
 *
 * - `parked` (service → executor): calls of this connection parked, and
 *   how each ended (its `ExecutionOutcome`; over the in-memory link the
 *   object itself, not a copy), every one that parked in the same tick in
 *   one message;
 * - `cancel` (executor → service): the Host cancelled a call (it still
 *   parks, as `cancelled`);
 * - `forget` (executor → service): a call the executor cancelled never
 *   reached the service; its pending cancellation is dropped;
 * - `acknowledge` (executor → service): the Host's decisions, every one
 *   made in the same tick in one message.
 *
 * Both ends declare the `spillway/executor` capability under
 * `experimental` at initialize (MCP's place for extensions), and neither
 * sends any of these to a peer that did not: an ordinary MCP client of the
 * service gets none, and what it sends under these names is ignored. The
 * gateway's clients never reach the service over MCP at all.
 *
 * @module
 */

import { z } from "zod";
import type { Acknowledgement, ExecutionOutcome } from "./executor.ts";

/** The experimental capability both ends declare: `capabilities.experimental["spillway/executor"]`. */
export const EXECUTOR_CHANNEL = "spillway/executor";

/** The `notifications/spillway/…` methods. */
export const CHANNEL_METHODS = {
  parked: "notifications/spillway/parked",
  cancel: "notifications/spillway/cancel",
  forget: "notifications/spillway/forget",
  acknowledge: "notifications/spillway/acknowledge",
} as const;

/** One parked call as `parked` carries it: `[callId, outcome]`. */
export type ChannelParked = readonly [callId: string, outcome: ExecutionOutcome];

/** One acknowledgement as `acknowledge` carries it: `[callId, ack]`. */
export type ChannelAcknowledgement = readonly [callId: string, ack: Acknowledgement];

/** Whether peer capabilities `capabilities` declare the channel. */
export function speaksChannel(
  capabilities:
    | { readonly experimental?: Readonly<Record<string, unknown>> | undefined }
    | undefined,
): boolean {
  return capabilities?.experimental?.[EXECUTOR_CHANNEL] !== undefined;
}

/** The `experimental` capability to declare at initialize. */
export const CHANNEL_CAPABILITY: {
  readonly experimental: Record<string, Record<string, never>>;
} = {
  experimental: { [EXECUTOR_CHANNEL]: {} },
};

// The payloads are the service's and the executor's own values: checked for
// their shape by hand, and passed on as they are (a zod object schema would
// copy every outcome and acknowledgement of a batch).

function isOutcome(value: unknown): value is ExecutionOutcome {
  if (typeof value !== "object" || value === null || !("kind" in value)) return false;
  if (value.kind === "executed") {
    return "response" in value && typeof value.response === "object" && value.response !== null;
  }
  return (value.kind === "lost" || value.kind === "cancelled" || value.kind === "failed") &&
    "reason" in value && typeof value.reason === "string";
}

function isAcknowledgement(value: unknown): value is Acknowledgement {
  if (typeof value !== "object" || value === null || !("kind" in value)) return false;
  switch (value.kind) {
    case "deliver":
      return true;
    case "replace": {
      const structured = "structuredContent" in value ? value.structuredContent : undefined;
      return "content" in value && typeof value.content === "string" && "isError" in value &&
        typeof value.isError === "boolean" &&
        (structured === undefined ||
          (typeof structured === "object" && structured !== null && !Array.isArray(structured)));
    }
    case "fail":
      return "message" in value && typeof value.message === "string";
    default:
      return false;
  }
}

/** Whether `value` is a list of `[callId, payload]` pairs whose payloads pass `isPayload`. */
function isPairs<T>(value: unknown, isPayload: (payload: unknown) => payload is T): boolean {
  if (!Array.isArray(value)) return false;
  for (const entry of value) {
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== "string") return false;
    if (!isPayload(entry[1])) return false;
  }
  return true;
}

/** The params of `notifications/spillway/parked`: `{ parked: [[callId, outcome], …] }`. */
export const ParkedParamsSchema = z.object({
  parked: z.custom<readonly ChannelParked[]>((value) => isPairs(value, isOutcome)),
});

/** The params of `notifications/spillway/cancel`: `{ callId, reason }`. */
export const CancelParamsSchema = z.object({ callId: z.string(), reason: z.string() });

/** The params of `notifications/spillway/forget`: `{ callId }`. */
export const ForgetParamsSchema = z.object({ callId: z.string() });

/** The params of `notifications/spillway/acknowledge`: `{ acknowledgements: [[callId, ack], …] }`. */
export const AcknowledgeParamsSchema = z.object({
  acknowledgements: z.custom<readonly ChannelAcknowledgement[]>((value) =>
    isPairs(value, isAcknowledgement)
  ),
});
