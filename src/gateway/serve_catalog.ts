/**
 * The prompts and resources one `spillway serve` client sees: the upstream
 * servers' as its own connections list them (its catalog, see
 * {@linkcode UpstreamCatalog}), each request passed on to its connection to
 * the server that listed the item, beside the gateway's own stored outputs
 * (`spillway://outputs/…`, when outputs are spilled).
 *
 * What passes through is not capped and not recorded: a client asks for a
 * prompt or a resource by name (the application or the user picks it, the
 * model does not call it), and the answer is the upstream's, whole. Only a
 * stored output over 32 MiB is refused (it is paged with `read_tool_output`).
 *
 * @module
 */

import type { BlobOwners } from "../blobs/blob_owners.ts";
import type { BlobStore } from "../blobs/blob_store.ts";
import { BLOB_URI_PREFIX, listBlobResources, readBlobResource } from "../service/blob_resources.ts";
import { reasonText } from "../errors/reason_text.ts";
import {
  type ListResourcesResult,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
} from "../service/sdk.ts";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../service/tool_timeout.ts";
import type {
  CatalogRequestOptions,
  CatalogUpstream,
} from "../service/upstream/catalog_upstream.ts";
import type { UpstreamCatalog } from "./upstream_catalog.ts";

/** What {@linkcode serveCatalog} serves besides the catalog. */
export interface ServeCatalogOptions {
  /** The stored outputs served as resources, if any. */
  readonly blobs: BlobStore | undefined;
  /** Who produced which stored output: the client sees only its own. */
  readonly owners: BlobOwners | undefined;
  /**
   * The client the session belongs to: its listings, `prompts/get` and
   * `resources/read` go to its own connection to each server.
   */
  readonly principal: string;
}

/**
 * Serves the catalog's prompts and resources, and the stored outputs (if
 * any) as resources, on `server`. Call it before the server connects; the
 * server must advertise what the catalog offers.
 */
export function serveCatalog(
  server: Server,
  catalog: UpstreamCatalog,
  options: ServeCatalogOptions,
): void {
  const { blobs, principal } = options;
  const reader = options.owners === undefined ? undefined : { owners: options.owners, principal };
  const offered = catalog.capabilities;
  if (offered.prompts !== undefined) {
    server.setRequestHandler(
      "prompts/list",
      async () => ({ prompts: (await catalog.of(principal)).prompts }),
    );
    server.setRequestHandler("prompts/get", async (request, extra) => {
      const { name } = request.params;
      const source = (await catalog.of(principal)).promptOwner(name);
      if (source === undefined) {
        throw rpcError(ProtocolErrorCode.InvalidParams, `unknown prompt ${JSON.stringify(name)}`);
      }
      return await forwarded(
        source,
        "prompts/get",
        extra.mcpReq.signal,
        (options) => source.getPrompt(request.params, { ...options, principal }),
      );
    });
  }
  if (offered.resources === undefined && blobs === undefined) return;
  server.setRequestHandler("resources/list", async (request) => {
    const cursor = request.params?.cursor;
    // Every upstream resource is on the first page; further pages are stored outputs.
    const stored: ListResourcesResult = blobs === undefined
      ? { resources: [] }
      : await listBlobResources(blobs, cursor, reader);
    if (cursor !== undefined) return stored;
    const upstream = (await catalog.of(principal)).resources;
    return { ...stored, resources: [...upstream, ...stored.resources] };
  });
  server.setRequestHandler(
    "resources/templates/list",
    async () => ({ resourceTemplates: (await catalog.of(principal)).templates }),
  );
  server.setRequestHandler("resources/read", async (request, extra) => {
    const { uri } = request.params;
    if (blobs !== undefined && uri.startsWith(BLOB_URI_PREFIX)) {
      return await readBlobResource(blobs, uri, reader);
    }
    const source = (await catalog.of(principal)).resourceOwner(uri);
    if (source === undefined) {
      throw rpcError(
        ProtocolErrorCode.InvalidParams,
        `unknown resource ${JSON.stringify(uri)}: no upstream server lists it or a template ` +
          "matching it",
      );
    }
    return await forwarded(
      source,
      "resources/read",
      extra.mcpReq.signal,
      (options) => source.readResource(request.params, { ...options, principal }),
    );
  });
}

/**
 * `send`'s answer from `source`, under the client's `signal` and the
 * default tool timeout (not the SDK's 60 s); a failure as an MCP error naming the
 * server: its own JSON-RPC error keeps its code, any other (it cannot be
 * started, it went away, it did not answer in time) is an internal error.
 */
async function forwarded<T>(
  source: CatalogUpstream,
  method: string,
  signal: AbortSignal,
  send: (options: CatalogRequestOptions) => Promise<T>,
): Promise<T> {
  try {
    return await send({ signal, timeout: DEFAULT_TOOL_TIMEOUT_MS });
  } catch (error) {
    if (error instanceof ProtocolError) {
      throw rpcError(error.code, `${source.name} failed ${method}: ${error.message}`, error.data);
    }
    throw rpcError(
      ProtocolErrorCode.InternalError,
      `${source.name} failed ${method}: ${reasonText(error)}`,
    );
  }
}

/**
 * A JSON-RPC error the SDK's server sends as it is: code, message and data
 * (a `ProtocolError` would have a -32002 renumbered and its `data` cut to the
 * members the spec names: the upstream server's own error passes whole).
 */
function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}
