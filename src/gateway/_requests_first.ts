/**
 * The session's stream as one gateway phase records into it: the phase's
 * first append (its commit's responses) carries the batch's
 * `tool_call_request` events in front. A client's calls have already run
 * when their phase commits, so nothing is gained by writing the requests
 * on their own; one write instead of two spares a lone call a file-system
 * round trip, and the requests and responses of a batch are durable
 * together or, when the flush fails, cut off together.
 *
 * @module
 */

import type { StreamEvent } from "../stream/events.ts";
import type { ConversationStream } from "../stream/stream_store.ts";

/**
 * A view of `stream` whose next append writes `requests` first. Closing the
 * view does not close `stream`: the session owns it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryStreamStore } from "../stream/memory_stream_store.ts";
 * import { requestsFirst } from "./_requests_first.ts";
 * const stream = await new MemoryStreamStore().open("20261130-120000-aaaaaa");
 * const view = requestsFirst(stream, [
 *   { type: "tool_call_request", id: "call_1", name: "echo", arguments: {} },
 * ]);
 * await view.append([{ type: "tool_call_response", id: "call_1", content: "hi", is_error: false }]);
 * await view.close();
 * const { events } = await stream.load();
 * assert.deepEqual(events.map((e) => e.type), ["tool_call_request", "tool_call_response"]);
 * ```
 */
export function requestsFirst(
  stream: ConversationStream,
  requests: readonly StreamEvent[],
): ConversationStream {
  let pending: readonly StreamEvent[] = requests;
  return {
    id: stream.id,
    location: stream.location,
    append: (events) => {
      const batch = pending.length === 0 ? events : [...pending, ...events];
      pending = [];
      return stream.append(batch);
    },
    flush: () => stream.flush(),
    load: () => stream.load(),
    close: () => Promise.resolve(),
  };
}
