/**
 * Keeping the payloads of a result's non-text blocks: the stream records
 * each block by its digest, never its bytes, so the service stores the
 * decoded bytes of every image, audio clip and embedded resource in the
 * workspace's blob store, under that digest, when the result arrives and
 * before the call parks. A provider that sends images reads them back from
 * there on every request, in this turn and in any later one; nothing else
 * holds them.
 *
 * @module
 */

import type { Logger } from "@logtape/logtape";
import type { BlobStore } from "../blobs/blob_store.ts";
import { payloadBytes } from "./payload_bytes.ts";
import type { SourceCallEnd } from "./source_call.ts";

/**
 * Stores the payload of every image, audio and embedded-resource block of
 * `end`'s result in `store` (the same bytes twice are one blob). A store
 * that fails (a full disk) costs the kept payload, never the result: the
 * failure is logged and the call parks as it is; a model is then sent the
 * block's placeholder line.
 */
export async function keepPayloads(
  end: SourceCallEnd,
  store: BlobStore,
  log: Logger,
): Promise<void> {
  const { result } = end;
  if (result === undefined || end.outcome.kind !== "executed") return;
  for (const block of result.content) {
    const bytes = payloadBytes(block);
    if (bytes === undefined) continue;
    let writer;
    try {
      writer = await store.writer();
      await writer.write(bytes);
      await writer.finish();
    } catch (error) {
      await writer?.abort().catch(() => {});
      log.warn("could not keep a {kind} payload of {callId}: {error}", {
        kind: block.type,
        callId: end.outcome.response.id,
        error,
      });
    }
  }
}
