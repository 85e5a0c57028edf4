/**
 * A provider double that replays steps, one per model request: an answer, a
 * rejection (an `Error`), or a function of the request. It keeps every
 * request, so a test can check what the model was sent (the recorded,
 * capped responses).
 *
 * @module
 */

import type { AssistantMessage, Provider, ProviderRequest } from "../provider/provider.ts";

/** One step: the answer, the error the request fails with, or a function of the request. */
export type ProviderStep =
  | AssistantMessage
  | Error
  | ((request: ProviderRequest) => AssistantMessage | Promise<AssistantMessage>);

/**
 * Replays `steps`; a request past the last step fails.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { StepProvider } from "./step_provider.ts";
 * const provider = new StepProvider([{ text: "hi", toolCalls: [] }, new Error("prompt is too long")]);
 * const request = { messages: [], tools: [], cycle: 0, signal: new AbortController().signal };
 * assert.equal((await provider.complete(request)).text, "hi");
 * await assert.rejects(provider.complete({ ...request, cycle: 1 }), /prompt is too long/);
 * assert.equal(provider.requests.length, 2);
 * ```
 */
export class StepProvider implements Provider {
  /** Every request, in order. */
  readonly requests: ProviderRequest[] = [];
  readonly #steps: ProviderStep[];

  /**
   * A provider that answers request N with `steps[N]`.
   *
   * @param steps the steps, in request order
   */
  constructor(steps: readonly ProviderStep[]) {
    this.#steps = [...steps];
  }

  /** Answers with the next step. */
  complete(request: ProviderRequest): Promise<AssistantMessage> {
    this.requests.push(request);
    const step = this.#steps.shift();
    if (step === undefined) return Promise.reject(new Error("the script has no more cycles"));
    if (step instanceof Error) return Promise.reject(step);
    if (typeof step === "function") {
      try {
        return Promise.resolve(step(request));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return Promise.resolve(step);
  }
}
