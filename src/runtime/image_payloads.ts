/**
 * Images for models that take them. The stream records an image by its
 * digest, and the execution service keeps its bytes in the workspace's blob
 * store under that digest; before each request to a provider that sends
 * images (`Provider.sendsImages`), the recorded image blocks of the view get
 * their payload back from the store. The same happens for a conversation
 * continued a week later: what the model saw is what it sees again.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { BlobStore } from "../blobs/blob_store.ts";
import { readWholeBlob } from "../blobs/read_whole_blob.ts";
import { isBlobRef } from "../blobs/blob_ref.ts";
import type { ConversationMessage, Provider, ToolMessage } from "../provider/provider.ts";
import type { ContentBlock, MediaBlock } from "../review/content_block.ts";
import { placeholderLine } from "../review/placeholder_line.ts";

/**
 * The most images one request carries, the most recent ones: the model APIs
 * refuse requests with many images (Anthropic: 100, and larger images only
 * up to 20). Older ones go as their placeholder lines.
 */
export const MAX_IMAGES_SENT = 20;

/**
 * `provider` with the payloads of the view's last {@linkcode MAX_IMAGES_SENT}
 * images read from `store` before each request. An image whose payload the
 * store does not have (a full disk when it arrived, a conversation from
 * another workspace) stays without one, so it is sent as its placeholder
 * line, and `warn` is told once per image; it is told once, too, when older
 * images start going as placeholders.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileBlobStore } from "../blobs/file_blob_store.ts";
 * import { withImagePayloads } from "./image_payloads.ts";
 * const store = new FileBlobStore(await Deno.makeTempDir());
 * const { ref } = await store.put("PNG!");
 * let seen: unknown;
 * const provider = withImagePayloads({
 *   sendsImages: true,
 *   complete: (request) => {
 *     seen = request.messages[0];
 *     return Promise.resolve({ text: "ok", toolCalls: [] });
 *   },
 * }, store, () => {});
 * const image = { type: "image" as const, mimeType: "image/png", bytes: 4, digest: ref };
 * await provider.complete({
 *   messages: [{ role: "tool", id: "c1", content: "[image: image/png, 4 B]", isError: false, blocks: [image] }],
 *   tools: [],
 *   cycle: 0,
 *   signal: new AbortController().signal,
 * });
 * assert.deepEqual((seen as { blocks: unknown[] }).blocks, [{ ...image, data: btoa("PNG!") }]);
 * ```
 */
export function withImagePayloads(
  provider: Provider,
  store: BlobStore,
  warn: (message: string) => void,
): Provider {
  const told = new Set<string>();
  const tell = (key: string, message: string) => {
    if (told.has(key)) return;
    told.add(key);
    warn(message);
  };
  return {
    ...(provider.model === undefined ? {} : { model: provider.model }),
    sendsImages: true,
    async complete(request) {
      const messages = await withPayloads(request.messages, store, tell);
      return provider.complete({ ...request, messages });
    },
  };
}

async function withPayloads(
  messages: readonly ConversationMessage[],
  store: BlobStore,
  tell: (key: string, message: string) => void,
): Promise<ConversationMessage[]> {
  const result = [...messages];
  let sent = 0;
  // Newest first: the most recent images are the ones that go.
  for (let m = result.length - 1; m >= 0; m--) {
    const message = result[m] as ConversationMessage;
    if (message.role !== "tool" || message.blocks === undefined) continue;
    const blocks: ContentBlock[] = [...message.blocks];
    let changed = false;
    for (let b = blocks.length - 1; b >= 0; b--) {
      const block = blocks[b] as ContentBlock;
      if (block.type !== "image" || block.data !== undefined) continue;
      if (sent === MAX_IMAGES_SENT) {
        tell(
          "older",
          `only the last ${MAX_IMAGES_SENT} images of a conversation go to the model as images; ` +
            "older ones go as their placeholder lines",
        );
        continue;
      }
      const data = await payloadOf(block, store);
      if (data === undefined) {
        tell(
          block.digest,
          `call ${message.id}: the payload of ${
            placeholderLine(block)
          } is not in ${store.location}: ` +
            "the model gets its placeholder line",
        );
        continue;
      }
      blocks[b] = { ...block, data };
      changed = true;
      sent++;
    }
    if (changed) result[m] = { ...message, blocks } satisfies ToolMessage;
  }
  return result;
}

/** The base64 payload of `image` from `store`, or `undefined` when it cannot be read whole. */
async function payloadOf(image: MediaBlock, store: BlobStore): Promise<string | undefined> {
  if (!isBlobRef(image.digest)) return undefined;
  try {
    const bytes = await readWholeBlob(store, image.digest);
    return bytes?.length === image.bytes ? Buffer.from(bytes).toString("base64") : undefined;
  } catch {
    // Missing or unreadable: the image goes as its placeholder line (and the person is told).
    return undefined;
  }
}
