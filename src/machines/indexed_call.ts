/**
 * Values tagged with their call index: the position of a call in the
 * assistant message. Slots, acknowledgements and deliveries travel between
 * the phase, the commit and the turn keyed by it, so the commit can merge
 * executed and pre-resolved responses back into call order.
 *
 * @module
 */

import type { Review } from "../review/review.ts";
import type { ToolCall } from "../review/tool_call.ts";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type { Acknowledgement, DeliveryOutcome } from "../service/executor.ts";

/** A call and its index in the assistant message. */
export interface IndexedCall {
  /** The call's position in the assistant message (0-based). */
  readonly index: number;
  /** The call. */
  readonly call: ToolCall;
}

/** The review written into one call's slot. */
export interface IndexedReview {
  /** The call's position in the assistant message. */
  readonly index: number;
  /** What the Host settled on for the call. */
  readonly review: Review;
}

/** The commit's reply to one parked call. */
export interface IndexedAcknowledgement {
  /** The call's position in the assistant message. */
  readonly index: number;
  /** The call id (for people reading logs and inspection output). */
  readonly callId: string;
  /** What the service is to deliver. */
  readonly ack: Acknowledgement;
  /** What was recorded in the stream; `undefined` when nothing was. */
  readonly recorded: ToolCallResponse | undefined;
}

/** What the caller of one call finally received. */
export interface IndexedDelivery {
  /** The call's position in the assistant message. */
  readonly index: number;
  /** The call id. */
  readonly callId: string;
  /** What was delivered, checked against what was recorded. */
  readonly delivery: DeliveryOutcome;
}
