/**
 * Which conversation a 2026-07-28 request belongs to. The protocol has no
 * session: a request names its client's software (`clientInfo`) and nothing
 * of the conversation it is part of. What real clients send was looked at
 * (Claude Code 2.1.337 over HTTP sends no conversation id at all, its
 * connections are pooled, and two of its conversations send the same
 * requests; Codex puts its thread's id in each call's `_meta`), so the rule
 * is, first that applies:
 *
 * 1. the `Spillway-Conversation` header, which a person can set per agent
 *    in the client's MCP configuration;
 * 2. an id the client put in the request's `_meta`: `claudecode/sessionId`,
 *    `sessionId`, `threadId` (in that order);
 * 3. the client's software: `clientInfo.name`, so all of one token's calls
 *    from one kind of client without an id form one rolling conversation.
 *
 * The conversation is always within the request's client (its token): two
 * tokens never share one. docs/protocol.md says this for users.
 *
 * @module
 */

import { CLIENT_INFO_META_KEY } from "../service/sdk.ts";

/** The header naming a request's conversation. */
export const CONVERSATION_HEADER = "spillway-conversation";

/** The `_meta` keys whose string value names the client's conversation, in order. */
export const CONVERSATION_META_KEYS: readonly string[] = [
  "claudecode/sessionId",
  "sessionId",
  "threadId",
];

/** The longest key kept; a longer one is cut (it is a name, not data). */
const MAX_KEY_CHARS = 200;

/**
 * The conversation key of a 2026-07-28 request: `header:…`, `meta:…` or
 * `client:…` (rule 1, 2 or 3 of the module comment).
 *
 * @param headers the request's HTTP headers (none over stdio)
 * @param body the request's JSON-RPC message
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modernConversationKey } from "./modern_conversation_key.ts";
 * const body = {
 *   method: "tools/call",
 *   params: { _meta: { "io.modelcontextprotocol/clientInfo": { name: "claude-code", version: "2" } } },
 * };
 * assert.equal(modernConversationKey(new Headers(), body), "client:claude-code");
 * assert.equal(
 *   modernConversationKey(new Headers({ "spillway-conversation": "review-bot" }), body),
 *   "header:review-bot",
 * );
 * ```
 */
export function modernConversationKey(headers: Headers, body: unknown): string {
  const header = headers.get(CONVERSATION_HEADER)?.trim();
  if (header !== undefined && header !== "") return `header:${bounded(header)}`;
  const meta = metaOf(body);
  for (const key of CONVERSATION_META_KEYS) {
    const value = meta?.[key];
    if (typeof value === "string" && value !== "") return `meta:${bounded(value)}`;
  }
  const info = meta?.[CLIENT_INFO_META_KEY];
  const name = typeof info === "object" && info !== null
    ? (info as { name?: unknown }).name
    : undefined;
  return `client:${typeof name === "string" ? bounded(name) : "-"}`;
}

function metaOf(body: unknown): Readonly<Record<string, unknown>> | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const params = (body as { params?: unknown }).params;
  if (typeof params !== "object" || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta === "object" && meta !== null
    ? meta as Readonly<Record<string, unknown>>
    : undefined;
}

function bounded(text: string): string {
  return text.length > MAX_KEY_CHARS ? text.slice(0, MAX_KEY_CHARS) : text;
}
