/**
 * The phase's triage of a batch, when the phase starts: one record per call,
 * with the route it takes to its slot. Calls that will not run are answered
 * here (a repeated call id, an unavailable tool, arguments that are not a
 * JSON object, a policy that cannot be resolved, a cancelled turn,
 * `run = "skip"`); these answers have no tool
 * config of their own, and the batch ceiling bounds them. Every call that
 * can run gets its execution link.
 *
 * @module
 */

import type { ToolCall } from "../review/tool_call.ts";
import type { ExecutionHandle, Executor } from "../service/executor.ts";
import { reasonText } from "../errors/reason_text.ts";
import type { CallRecord } from "./call_record.ts";
import { ExecutionLink } from "./execution_link.ts";
import {
  cancelledReview,
  failedReview,
  invalidArgumentsReview,
  repeatedCallReview,
  skippedCallReview,
  unavailableToolReview,
} from "./synthesized_reviews.ts";
import type { PolicyFor, ToolPolicy } from "./turn_dependencies.ts";

/** A call started elsewhere that joins a phase: the call and its running handle. */
export interface JoinedCall {
  /** The call as its client sent it. */
  readonly call: ToolCall;
  /** The running call, parked (or about to be) on its barrier; releasing it answers its client. */
  readonly handle: ExecutionHandle;
  /**
   * Its tool did not exist when the call arrived, so it never ran: it is
   * answered as an unavailable tool in an assistant's message is (listing
   * `available`), and its handle hands that answer to its client. Default: `false`.
   */
  readonly unavailable?: boolean;
}

/** What {@linkcode triageCalls} needs besides the calls. */
export interface TriageOptions {
  /**
   * Knows which tools exist, and runs the calls. Default: none, when there
   * are no calls of the batch's own (joined calls bring their handles).
   */
  readonly executor?: Executor;
  /** Resolves each tool's policy. */
  readonly policyFor: PolicyFor;
  /** The names advertised to the model (listed in an unavailable-tool response). */
  readonly available: readonly string[];
  /** What an unavailable-tool response adds (servers not answering yet). Default: nothing. */
  readonly unavailableNote?: string | undefined;
  /** The turn's signal: once aborted, no call runs. */
  readonly signal: AbortSignal;
}

/** Whether a person is asked about a call under `policy`, before it runs or about its result. */
export function asksPerson(policy: ToolPolicy): boolean {
  return policy.run === "ask" || policy.run === "edit" || policy.result === "ask" ||
    policy.result === "edit";
}

/**
 * The records of a batch: `calls` (indices 0…), then `joined` (after them).
 * A policy is resolved once per tool; a lookup that throws answers its call
 * with an error response instead of failing the phase.
 *
 * @throws {TypeError} when there are `calls` but no executor to run them
 */
export function triageCalls(
  calls: readonly ToolCall[],
  joined: readonly JoinedCall[],
  options: TriageOptions,
): CallRecord[] {
  const policies = new Map<string, ToolPolicy | Error>();
  const policyOf = (tool: string): ToolPolicy | Error => {
    let policy = policies.get(tool);
    if (policy === undefined) {
      try {
        policy = options.policyFor(tool);
      } catch (error) {
        policy = new Error(
          `the policy of tool ${tool} could not be resolved: ${reasonText(error)}`,
        );
      }
      policies.set(tool, policy);
    }
    return policy;
  };
  const { executor } = options;
  if (executor === undefined && calls.length > 0) {
    throw new TypeError(`a phase with calls of its own needs an executor (${calls.length} to run)`);
  }
  const seen = new Set<string>();
  const records: CallRecord[] = executor === undefined ? [] : calls.map((call, index) => {
    const answered = (review: CallRecord["review"], policy?: ToolPolicy): CallRecord => ({
      index,
      call,
      route: "answered",
      policy,
      link: undefined,
      review,
    });
    if (seen.has(call.id)) return answered(repeatedCallReview(call));
    seen.add(call.id);
    if (!executor.has(call.name)) {
      return answered(unavailableToolReview(call, options.available, options.unavailableNote));
    }
    if (call.invalidArguments !== undefined) return answered(invalidArgumentsReview(call));
    const policy = policyOf(call.name);
    if (policy instanceof Error) return answered(failedReview(call, policy.message));
    if (options.signal.aborted) {
      return answered(cancelledReview(call, policy.cancellationResponse), policy);
    }
    if (policy.run === "skip") return answered(skippedCallReview(call), policy);
    return {
      index,
      call,
      route: asksPerson(policy) ? "attended" : "unattended",
      policy,
      link: new ExecutionLink(call.id, { executor }),
      review: undefined,
    };
  });
  joined.forEach(({ call, handle, unavailable }, i) => {
    const index = calls.length + i;
    const link = new ExecutionLink(call.id, { handle });
    if (unavailable === true) {
      const review = unavailableToolReview(call, options.available, options.unavailableNote);
      records.push({ index, call, route: "answered", policy: undefined, link, review });
      return;
    }
    const policy = policyOf(call.name);
    // A joined call is already running: whatever its policy says, it is
    // released (it has a link), and its `run` no longer applies.
    if (policy instanceof Error) {
      const review = failedReview(call, policy.message);
      records.push({ index, call, route: "answered", policy: undefined, link, review });
      return;
    }
    const running: ToolPolicy = { ...policy, run: "unattended" };
    const route = asksPerson(running) ? "attended" : "joined";
    records.push({ index, call, route, policy: running, link, review: undefined });
  });
  return records;
}
