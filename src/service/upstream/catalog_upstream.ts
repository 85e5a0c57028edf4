/**
 * An upstream server as the gateway's catalog of prompts and resources sees
 * it: its name, what it offers, one page of a listing at a time, the two
 * requests passed on (`prompts/get`, `resources/read`), and word when its
 * prompts or resources changed. Every request names its principal (a
 * `spillway serve` client) and goes to that principal's own connection, and
 * word of a change names the principal whose connection sent it: what a
 * server lists can depend on the connection (a browser's open pages), so a
 * client's catalog is listed from its own. The connections answer these
 * requests themselves ({@linkcode UpstreamConnections}); the catalog holds no
 * SDK client and never stops a server.
 *
 * @module
 */

import type {
  CompleteRequest,
  CompleteResult,
  GetPromptRequest,
  GetPromptResult,
  Prompt,
  ReadResourceRequest,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
} from "../sdk.ts";

/** One page of a listing. */
export interface CatalogPage<T> {
  /** The page's items. */
  readonly items: readonly T[];
  /** Where the next page starts; absent on the last. */
  readonly nextCursor?: string | undefined;
}

/** Per-request limits of a passed-on request. */
export interface CatalogRequestOptions {
  /** The client's signal: its cancellation reaches the server. */
  readonly signal: AbortSignal;
  /** How long the server may take, in ms. */
  readonly timeout: number;
  /**
   * Whose request it is (a `spillway serve` client): it goes to that
   * principal's own connection to the server. Default: spillway's own.
   */
  readonly principal?: string | undefined;
}

/** One upstream server, for the catalog. */
export interface CatalogUpstream {
  /** The source name, `"mcp.<server>"`. */
  readonly name: string;
  /**
   * The server's capabilities (it is started if needed).
   *
   * @throws {SpillwayError} `tool_unavailable` when it cannot be started
   */
  capabilities(): Promise<ServerCapabilities>;
  /**
   * One page of `prompts/list` from `cursor` (the first without one), under
   * the start-up timeout, on `principal`'s connection (spillway's own
   * without one), which is started if needed.
   */
  listPrompts(
    cursor: string | undefined,
    principal?: string | undefined,
  ): Promise<CatalogPage<Prompt>>;
  /** One page of `resources/list`, the same way. */
  listResources(
    cursor: string | undefined,
    principal?: string | undefined,
  ): Promise<CatalogPage<Resource>>;
  /** One page of `resources/templates/list`, the same way. */
  listResourceTemplates(
    cursor: string | undefined,
    principal?: string | undefined,
  ): Promise<CatalogPage<ResourceTemplate>>;
  /** `prompts/get`; a JSON-RPC error of the server is thrown as the SDK's `ProtocolError`. */
  getPrompt(
    params: GetPromptRequest["params"],
    options: CatalogRequestOptions,
  ): Promise<GetPromptResult>;
  /** `resources/read`; a JSON-RPC error of the server is thrown as the SDK's `ProtocolError`. */
  readResource(
    params: ReadResourceRequest["params"],
    options: CatalogRequestOptions,
  ): Promise<ReadResourceResult>;
  /** `completion/complete`, on the asking principal's connection, the same way. */
  complete(
    params: CompleteRequest["params"],
    options: CatalogRequestOptions,
  ): Promise<CompleteResult>;
  /**
   * `resources/subscribe` to `uri` on the asking principal's connection
   * (sent once however many of its sessions subscribe).
   */
  subscribe(uri: string, options: CatalogRequestOptions): Promise<void>;
  /** `resources/unsubscribe`, once the last of the principal's subscriptions to `uri` ends. */
  unsubscribe(uri: string, options: CatalogRequestOptions): Promise<void>;
  /**
   * Calls `listener` when a connection says resource `uri` was updated
   * (`notifications/resources/updated`), with the connection's principal.
   */
  onResourceUpdated(
    listener: (uri: string, principal: string | undefined) => void,
  ): () => void;
  /**
   * Calls `listener` when the server says, on one of its connections, that
   * its prompts or its resources changed, with that connection's principal
   * (`undefined`: spillway's own connection).
   */
  onCatalogChanged(
    listener: (kind: "prompts" | "resources", principal: string | undefined) => void,
  ): () => void;
}
