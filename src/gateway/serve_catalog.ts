/**
 * The prompts and resources one `spillway serve` client sees: the upstream
 * servers' as its own connections list them (its catalog, see
 * {@linkcode UpstreamCatalog}), each request passed on to its connection to
 * the server that listed the item, beside the gateway's own stored outputs
 * (`spillway://outputs/…`, when outputs are spilled).
 *
 * `completion/complete` goes to the server of the prompt or resource
 * template it names, and `resources/subscribe` / `unsubscribe` to the
 * server of the resource, when a server offers them; the session is told
 * of the updates of the resources it subscribed to
 * (`notifications/resources/updated`).
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
  if (offered.completions !== undefined) serveCompletion(server, catalog, principal);
  if (offered.resources?.subscribe === true) serveSubscriptions(server, catalog, principal);
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

/** `completion/complete`, passed on to the server of the prompt or template it names. */
function serveCompletion(server: Server, catalog: UpstreamCatalog, principal: string): void {
  server.setRequestHandler("completion/complete", async (request, extra) => {
    const { ref } = request.params;
    const clientCatalog = await catalog.of(principal);
    const source = ref.type === "ref/prompt"
      ? clientCatalog.promptOwner(ref.name)
      : clientCatalog.templateOwner(ref.uri);
    if (source === undefined) {
      const what = ref.type === "ref/prompt"
        ? `prompt ${JSON.stringify(ref.name)}`
        : `resource ${JSON.stringify(ref.uri)}`;
      throw rpcError(
        ProtocolErrorCode.InvalidParams,
        `unknown ${what}: no upstream server lists it`,
      );
    }
    return await forwarded(
      source,
      "completion/complete",
      extra.mcpReq.signal,
      (options) => source.complete(request.params, { ...options, principal }),
    );
  });
}

/**
 * `resources/subscribe` and `unsubscribe`, passed on to the server of the
 * resource, and its `notifications/resources/updated` passed back to the
 * session while it subscribes.
 */
function serveSubscriptions(server: Server, catalog: UpstreamCatalog, principal: string): void {
  const subscribed = new Map<string, CatalogUpstream>();
  const stop = catalog.onResourceUpdated((uri, client) => {
    if (client !== principal || !subscribed.has(uri)) return;
    // A session that ended stops listening at its next update.
    server.sendResourceUpdated({ uri }).catch(() => stop());
  });
  const owner = async (uri: string) => {
    const source = (await catalog.of(principal)).resourceOwner(uri);
    if (source !== undefined) return source;
    throw rpcError(
      ProtocolErrorCode.InvalidParams,
      `unknown resource ${
        JSON.stringify(uri)
      }: no upstream server lists it or a template matching it`,
    );
  };
  server.setRequestHandler("resources/subscribe", async (request, extra) => {
    const { uri } = request.params;
    if (subscribed.has(uri)) return {};
    const source = await owner(uri);
    await forwarded(
      source,
      "resources/subscribe",
      extra.mcpReq.signal,
      (options) => source.subscribe(uri, { ...options, principal }),
    );
    subscribed.set(uri, source);
    return {};
  });
  server.setRequestHandler("resources/unsubscribe", async (request, extra) => {
    const { uri } = request.params;
    const source = subscribed.get(uri);
    if (source === undefined) return {};
    subscribed.delete(uri);
    await forwarded(
      source,
      "resources/unsubscribe",
      extra.mcpReq.signal,
      (options) => source.unsubscribe(uri, { ...options, principal }),
    );
    return {};
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
