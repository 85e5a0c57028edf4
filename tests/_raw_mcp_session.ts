/**
 * Test helper: the lightest MCP client a load generator can be, one
 * session over Streamable HTTP with plain `fetch` and JSON-RPC (no SDK:
 * no zod validation, no transport state machine). It initializes, then
 * calls tools one at a time; an answer comes back as JSON or as one
 * server-sent event, and the message with the request's id is its answer.
 * A 2026-07-28 client ({@linkcode RawMcpSession.modern}) has no session:
 * each call is a POST carrying the `_meta` envelope, naming its
 * conversation with the `Spillway-Conversation` header.
 * Used by the load bench so that the clients cost as little CPU as they
 * can, leaving the cores to what is measured.
 *
 * @module
 */

/** One tool result's text blocks, or the JSON-RPC error. */
export type RawToolResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly error: string };

/** One MCP session with a gateway. */
export class RawMcpSession {
  readonly #url: URL;
  readonly #headers: Record<string, string>;
  /** A 2026-07-28 call's `_meta` envelope; none for a 2025 session. */
  readonly #meta: Record<string, unknown> | undefined;
  #nextId = 1;

  private constructor(
    url: URL,
    headers: Record<string, string>,
    meta?: Record<string, unknown>,
  ) {
    this.#url = url;
    this.#headers = headers;
    this.#meta = meta;
  }

  /**
   * A 2026-07-28 client of `url` with bearer `token`, its calls in
   * conversation `conversation`: nothing is sent until its first call.
   */
  static modern(url: URL, token: string, name: string, conversation: string): RawMcpSession {
    return new RawMcpSession(url, {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "spillway-conversation": conversation,
    }, {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name, version: "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    });
  }

  /** Opens a session at `url` with bearer `token` (initialize, then initialized). */
  static async open(url: URL, token: string, name: string): Promise<RawMcpSession> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const response = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name, version: "1.0.0" },
        },
      }),
    });
    const session = response.headers.get("mcp-session-id");
    const answer = await answerOf(response, 0);
    if (session === null || !("result" in answer)) {
      throw new Error(`initialize failed (${response.status}): ${JSON.stringify(answer)}`);
    }
    const version = (answer.result as { protocolVersion?: string }).protocolVersion ?? "2025-06-18";
    const opened = new RawMcpSession(url, {
      ...headers,
      "mcp-session-id": session,
      "mcp-protocol-version": version,
    });
    const initialized = await fetch(url, {
      method: "POST",
      headers: opened.#headers,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    await initialized.body?.cancel();
    if (!initialized.ok) throw new Error(`initialized: HTTP ${initialized.status}`);
    return opened;
  }

  /** Calls tool `name`; its text, or why not (an error answer, an HTTP error). */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<RawToolResult> {
    const id = this.#nextId++;
    const response = await fetch(this.#url, {
      method: "POST",
      // A 2026-07-28 request repeats its method and tool in headers (the server checks they agree).
      headers: this.#meta === undefined
        ? this.#headers
        : { ...this.#headers, "mcp-method": "tools/call", "mcp-name": name },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name,
          arguments: args,
          ...(this.#meta === undefined ? {} : { _meta: this.#meta }),
        },
      }),
      ...(signal === undefined ? {} : { signal }),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return { ok: false, error: `HTTP ${response.status}` };
    }
    const answer = await answerOf(response, id);
    if ("error" in answer) return { ok: false, error: JSON.stringify(answer.error) };
    const result = answer.result as { content?: { text?: string }[]; isError?: boolean };
    const text = (result.content ?? []).map((block) => block.text ?? "").join("");
    return result.isError === true ? { ok: false, error: text } : { ok: true, text };
  }

  /** Ends the session (DELETE); best effort. A 2026-07-28 client has none to end. */
  async close(): Promise<void> {
    if (this.#meta !== undefined) return;
    try {
      const response = await fetch(this.#url, { method: "DELETE", headers: this.#headers });
      await response.body?.cancel();
    } catch {
      // The gateway is gone: nothing to end.
    }
  }
}

/** The JSON-RPC message answering request `id`, from a JSON or an event-stream body. */
async function answerOf(
  response: Response,
  id: number,
): Promise<{ result: unknown } | { error: unknown }> {
  const body = await response.text();
  const type = response.headers.get("content-type") ?? "";
  const messages: unknown[] = type.startsWith("text/event-stream")
    ? body.split("\n").filter((line) => line.startsWith("data:")).map((line) =>
      JSON.parse(line.slice(5))
    )
    : [JSON.parse(body)];
  for (const message of messages.flat()) {
    const m = message as { id?: unknown; result?: unknown; error?: unknown };
    if (m.id === id && ("result" in m || "error" in m)) {
      return "error" in m ? { error: m.error } : { result: m.result };
    }
  }
  return { error: `no answer to request ${id} (HTTP ${response.status}): ${body.slice(0, 200)}` };
}
