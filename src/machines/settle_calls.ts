/**
 * The turn's triage of an assistant message's calls, before its phase
 * starts: calls that will not run get their response here (a repeated call
 * id, an unavailable tool, a policy that cannot be resolved, a cancelled
 * turn, `run = "skip"`), the rest go to the phase. These pre-resolved
 * responses have no tool config of their own; the batch ceiling bounds them.
 *
 * @module
 */

import type { ToolCall } from "../review/tool_call.ts";
import type { Executor } from "../service/executor.ts";
import type { IndexedCall, IndexedReview } from "./indexed_call.ts";
import {
  cancelledReview,
  failedReview,
  repeatedCallReview,
  skippedCallReview,
  unavailableToolReview,
} from "./synthesized_reviews.ts";
import { reasonText } from "../service/reason_text.ts";
import type { PolicyFor, ToolPolicy } from "./turn_dependencies.ts";

/** What {@linkcode settleCalls} needs besides the calls. */
export interface SettleCallsOptions {
  /** Knows which tools exist. */
  readonly executor: Executor;
  /** Resolves each tool's policy. */
  readonly policyFor: PolicyFor;
  /** The names advertised to the model (listed in an unavailable-tool response). */
  readonly available: readonly string[];
  /** The turn's signal: once aborted, no call runs. */
  readonly signal: AbortSignal;
}

/** The triage. */
export interface SettledCalls {
  /** Responses of the calls that do not run, by call index. */
  readonly preResolved: IndexedReview[];
  /** The calls the phase runs. */
  readonly toExecute: IndexedCall[];
  /** The policies resolved on the way, each tool's once. */
  readonly policies: ReadonlyMap<string, ToolPolicy>;
}

/**
 * Splits `calls` into those the phase runs and those settled without
 * running. A policy lookup that throws answers its call with an error
 * response instead of failing the turn.
 */
export function settleCalls(calls: readonly ToolCall[], options: SettleCallsOptions): SettledCalls {
  const preResolved: IndexedReview[] = [];
  const toExecute: IndexedCall[] = [];
  const policies = new Map<string, ToolPolicy>();
  const seen = new Set<string>();
  calls.forEach((call, index) => {
    if (seen.has(call.id)) {
      preResolved.push({ index, review: repeatedCallReview(call) });
      return;
    }
    seen.add(call.id);
    if (!options.executor.has(call.name)) {
      preResolved.push({ index, review: unavailableToolReview(call, options.available) });
      return;
    }
    let policy = policies.get(call.name);
    if (policy === undefined) {
      try {
        policy = options.policyFor(call.name);
      } catch (error) {
        const reason = `the policy of tool ${call.name} could not be resolved: ${
          reasonText(error)
        }`;
        preResolved.push({ index, review: failedReview(call, reason) });
        return;
      }
      policies.set(call.name, policy);
    }
    if (options.signal.aborted) {
      preResolved.push({ index, review: cancelledReview(call, policy.cancellationResponse) });
    } else if (policy.run === "skip") {
      preResolved.push({ index, review: skippedCallReview(call) });
    } else {
      toExecute.push({ index, call });
    }
  });
  return { preResolved, toExecute, policies };
}
