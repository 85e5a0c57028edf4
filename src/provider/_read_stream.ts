/**
 * Private helper of the model providers: reads an answer stream to its end,
 * handing each event to the answer being assembled, and turns whatever goes
 * wrong into one `provider_failed` error. Both clients end the iteration
 * quietly when the request is aborted, so a cancel is checked for after it.
 *
 * @module
 */

import {
  type ApiFailure,
  malformedAnswer,
  modelError,
  type ModelErrorContext,
} from "./model_error.ts";

/** What {@linkcode readStream} needs. */
export interface ReadStreamOptions<E> {
  /** Sends the request; resolves with its event stream. */
  readonly open: () => Promise<AsyncIterable<E>>;
  /** Takes one event. */
  readonly add: (event: E) => void;
  /** Reads the client's error. */
  readonly failureOf: (error: unknown) => ApiFailure;
  /** The request's signal. */
  readonly signal: AbortSignal;
  /** Named in errors. */
  readonly context: ModelErrorContext;
}

/**
 * Reads the stream `options.open()` yields into `options.add`.
 *
 * @throws {SpillwayError} `provider_failed`: the request failed, the stream held
 *   malformed JSON, or the request was cancelled
 */
export async function readStream<E>(options: ReadStreamOptions<E>): Promise<void> {
  const { context } = options;
  try {
    for await (const event of await options.open()) options.add(event);
  } catch (error) {
    if (error instanceof SyntaxError) throw malformedAnswer(context.model, error.message);
    throw modelError(options.failureOf(error), context);
  }
  if (options.signal.aborted) throw modelError({ kind: "cancelled", message: "" }, context);
}
