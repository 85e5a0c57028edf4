/**
 * One record per call of a phase: the call, its position in the assistant
 * message, how it reaches its slot, its tool's policy, its execution link,
 * and the review written into its slot. The phase keeps the records and
 * replaces them (never edits them in place) as slots are written and capped;
 * the commit records and releases the batch from them.
 *
 * @module
 */

import type { Review } from "../review/review.ts";
import type { ToolCall } from "../review/tool_call.ts";
import type { DeliveryOutcome } from "../service/executor.ts";
import type { ExecutionLink } from "./execution_link.ts";
import type { ToolPolicy } from "./turn_dependencies.ts";

/**
 * How a call reaches its slot:
 *
 * - `answered`: the Host answered it without running it (an unavailable
 *   tool, `run = "skip"`, a repeated call id, a cancelled turn, a policy
 *   that cannot be resolved); its review is written when the phase starts
 *   (a joined call answered this way keeps its link, to be released);
 * - `unattended`: nobody is asked about it (`run = "unattended"`, `result =
 *   "unattended"` or `"skip"`); the phase drives its execution link itself;
 * - `attended`: a person is asked before it runs or about its result; a
 *   `toolCall` actor drives it and writes its slot;
 * - `joined`: it was started elsewhere (an outside MCP client's call, parked
 *   by the service) and joined this phase to be capped, recorded and
 *   released with the others; nobody is asked about its result, and the
 *   phase does not start it. (A joined call whose `result` is `ask` or
 *   `edit` takes the `attended` route instead, its `run` set to
 *   `unattended`.)
 */
export type CallRoute = "answered" | "unattended" | "attended" | "joined";

/** One call of a phase. */
export interface CallRecord {
  /** The call's position in the batch (in the assistant message, then joined calls). */
  readonly index: number;
  /** The call as the assistant (or the outside client) sent it. */
  readonly call: ToolCall;
  /** How the call reaches its slot. */
  readonly route: CallRoute;
  /** The tool's policy; absent when it could not be resolved (or the tool does not exist). */
  readonly policy: ToolPolicy | undefined;
  /** The call inside the executor; absent for calls that never run. */
  readonly link: ExecutionLink | undefined;
  /** The review in the call's slot; absent until the slot is written. */
  readonly review: Review | undefined;
}

/** A review tagged with its call's index: what a slot is written with. */
export interface IndexedReview {
  /** The call's position in the batch. */
  readonly index: number;
  /** What the Host settled on for the call. */
  readonly review: Review;
}

/** What the caller of one call finally received. */
export interface IndexedDelivery {
  /** The call's position in the batch. */
  readonly index: number;
  /** The call id. */
  readonly callId: string;
  /** What was delivered, checked against what was recorded. */
  readonly delivery: DeliveryOutcome;
}
