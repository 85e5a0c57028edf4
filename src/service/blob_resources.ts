/**
 * Stored outputs as MCP resources: a client of the execution service (a
 * `spillway serve` client) can list the blobs of the workspace and read one
 * whole, beside paging it with the `read_tool_output` tool. A blob's URI is
 * `spillway://outputs/` followed by its reference (`sha256:<hex>`).
 *
 * @module
 */

import type { BlobOwners } from "../blobs/blob_owners.ts";
import { isBlobRef } from "../blobs/blob_ref.ts";
import type { BlobStore, StoredBlob } from "../blobs/blob_store.ts";
import { readWholeBlob } from "../blobs/read_whole_blob.ts";
import { ByteSize } from "../size/byte_size.ts";
import {
  type ListResourcesResult,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Server,
} from "./sdk.ts";

/** The URI prefix of stored outputs. */
export const BLOB_URI_PREFIX = "spillway://outputs/";

/**
 * Whose outputs a request may see: a `spillway serve` client sees only the
 * outputs it produced (their records in `owners`); an output it did not
 * produce gets the answer of one that does not exist.
 */
export interface BlobReader {
  /** Who produced which output. */
  readonly owners: BlobOwners;
  /** The client asking. */
  readonly principal: string;
}

/** Resources listed per `resources/list` page. */
const PAGE_SIZE = 100;

/**
 * The largest blob `resources/read` serves, 32 MiB: one JSON message holds
 * the whole text (several times its size in memory on each side). Larger
 * ones are read in pages with `read_tool_output`.
 */
export const MAX_BLOB_RESOURCE_BYTES = 32 * 1024 * 1024;

/**
 * Serves `store`'s blobs as resources on `server` (`resources/list`,
 * `resources/read`). Call it before the server connects.
 */
export function serveBlobResources(server: Server, store: BlobStore): void {
  server.registerCapabilities({ resources: {} });
  server.setRequestHandler(
    "resources/list",
    (request) => listBlobResources(store, request.params?.cursor),
  );
  server.setRequestHandler(
    "resources/read",
    (request) => readBlobResource(store, request.params.uri),
  );
}

/**
 * One page of `store`'s blobs as resources: the first without `cursor`, then
 * the one its `nextCursor` names.
 */
export async function listBlobResources(
  store: BlobStore,
  cursor: string | undefined,
  reader?: BlobReader,
): Promise<ListResourcesResult> {
  const blobs: StoredBlob[] = reader === undefined
    ? await store.list()
    : await reader.owners.list(reader.principal);
  const start = cursor === undefined ? 0 : blobs.findIndex((blob) => blob.ref > cursor);
  const page = start < 0 ? [] : blobs.slice(start, start + PAGE_SIZE);
  const result: ListResourcesResult = {
    resources: page.map((blob) => ({
      uri: BLOB_URI_PREFIX + blob.ref,
      name: blob.ref,
      title: `tool output, ${ByteSize.fromBytes(blob.bytes).human()}`,
      mimeType: "text/plain",
      size: blob.bytes,
    })),
  };
  const last = page.at(-1);
  if (last !== undefined && start + PAGE_SIZE < blobs.length) result.nextCursor = last.ref;
  return result;
}

/**
 * The stored output `uri` names, whole (when `reader` may read it).
 *
 * @throws {ProtocolError} `InvalidParams` for a URI that names no stored output,
 *   or one over {@linkcode MAX_BLOB_RESOURCE_BYTES}
 */
export async function readBlobResource(
  store: BlobStore,
  uri: string,
  reader?: BlobReader,
): Promise<ReadResourceResult> {
  const ref = uri.startsWith(BLOB_URI_PREFIX) ? uri.slice(BLOB_URI_PREFIX.length) : "";
  if (!isBlobRef(ref)) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `unknown resource ${JSON.stringify(uri)} (expected ${BLOB_URI_PREFIX}sha256:<64 hex digits>)`,
    );
  }
  const readable = reader === undefined || await reader.owners.owns(reader.principal, ref);
  const blob = readable ? await store.stat(ref) : undefined;
  if (blob === undefined) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `no stored output ${ref} in this workspace`,
    );
  }
  if (blob.bytes > MAX_BLOB_RESOURCE_BYTES) {
    const size = ByteSize.fromBytes(blob.bytes).human();
    const limit = ByteSize.fromBytes(MAX_BLOB_RESOURCE_BYTES).human();
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `stored output ${ref} is ${size}, over the ${limit} resources/read serves: ` +
        `page it with the read_tool_output tool`,
    );
  }
  const bytes = await readWholeBlob(store, ref);
  if (bytes === undefined) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `no stored output ${ref} in this workspace`,
    );
  }
  return { contents: [{ uri, mimeType: "text/plain", text: new TextDecoder().decode(bytes) }] };
}
