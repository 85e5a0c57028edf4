/**
 * The sessions of `spillway serve --http`, from the `initialize` that opens
 * one to its end, and the limits on them: at most `serve.max_sessions` at
 * once (an `initialize` past it is answered 503 with `Retry-After`), and
 * each closed once it went `serve.session_idle_timeout` without a request
 * (its `session` actor times out, releases its conversation and closes its
 * server). A session that ended for any reason (that timeout, `DELETE`, the
 * gateway's shutdown) is forgotten at once, so a later request naming it
 * gets 404 and its client initializes anew, as the transport spec says.
 * An `initialize` the transport refuses (a wrong `Accept`, a bad version)
 * leaves no session behind.
 *
 * @module
 */

import { reasonText } from "../errors/reason_text.ts";
import { Duration } from "../config/duration.ts";
import { WebStandardStreamableHTTPServerTransport } from "../service/sdk.ts";
import type { Gateway } from "./gateway.ts";
import type { GatewaySession } from "./gateway_session.ts";

/** Options of {@linkcode HttpSessions}. */
export interface HttpSessionsOptions {
  /** How many sessions at once (`serve.max_sessions`). */
  readonly maxSessions: number;
  /** How long a session may go without a request, in ms (`serve.session_idle_timeout`). */
  readonly idleTimeoutMs: number;
}

/**
 * The longest `Retry-After` a refused `initialize` is told: 60 s, or the
 * idle timeout when that is shorter (the soonest an abandoned session can
 * have closed).
 */
export const MAX_RETRY_AFTER_S = 60;

/** One session: the client it belongs to, its transport, and the gateway's session once connected. */
interface Entry {
  readonly client: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  session: GatewaySession | undefined;
}

/** The HTTP sessions of one gateway. */
export class HttpSessions {
  readonly #gateway: Gateway;
  readonly #options: HttpSessionsOptions;
  readonly #entries = new Map<string, Entry>();

  /**
   * @param gateway where sessions connect
   * @param options the limits; see {@linkcode HttpSessionsOptions}
   */
  constructor(gateway: Gateway, options: HttpSessionsOptions) {
    this.#gateway = gateway;
    this.#options = options;
  }

  /** How many sessions are open (or opening) now. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The transport of session `id`, while it lasts, when it belongs to
   * `client` (another client's session is as unknown as one that never was).
   */
  transport(id: string, client: string): WebStandardStreamableHTTPServerTransport | undefined {
    const entry = this.#entries.get(id);
    return entry?.client === client ? entry.transport : undefined;
  }

  /** Says session `id`'s client sent something other than a call: its idle timeout starts again. */
  touch(id: string): void {
    this.#entries.get(id)?.session?.touch();
  }

  /**
   * Opens a session of `client` for `request`, an `initialize` whose body
   * is `body`, and answers it; past `maxSessions`, the 503 refusing it.
   */
  async open(request: Request, body: unknown, client: string): Promise<Response> {
    if (this.#entries.size >= this.#options.maxSessions) return this.#full();
    const id = crypto.randomUUID();
    let initialized = false;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => void (initialized = true),
    });
    const entry: Entry = { client, transport, session: undefined };
    // Counted from now: the limit holds while initializes are under way.
    this.#entries.set(id, entry);
    // However it ends (its idle timeout, DELETE, shutdown), an ended session is forgotten.
    transport.onclose = () => {
      if (this.#entries.get(id) === entry) this.#entries.delete(id);
    };
    try {
      entry.session = await this.#gateway.connect(transport, {
        id,
        client,
        idleTimeoutMs: this.#options.idleTimeoutMs,
      });
    } catch (error) {
      // The gateway is shutting down: no new session.
      this.#entries.delete(id);
      return jsonError(503, reasonText(error));
    }
    const response = await transport.handleRequest(request, { parsedBody: body });
    // Refused by the transport (not acceptable, a bad version): nothing to keep.
    if (!initialized) await entry.session.close();
    return response;
  }

  /** Closes every session's transport. */
  async close(): Promise<void> {
    const transports = [...this.#entries.values()].map((entry) => entry.transport);
    this.#entries.clear();
    await Promise.allSettled(transports.map((transport) => transport.close()));
  }

  /** The answer to an `initialize` past `maxSessions`. */
  #full(): Response {
    const { maxSessions, idleTimeoutMs } = this.#options;
    const retryAfter = Math.min(MAX_RETRY_AFTER_S, Math.ceil(idleTimeoutMs / 1000));
    const message = `spillway serve has ${maxSessions} sessions open, the most it keeps ` +
      `(serve.max_sessions = ${maxSessions}): try again later, when a client has ended its ` +
      `session or one has been idle for ${Duration.fromMs(idleTimeoutMs)} ` +
      `(serve.session_idle_timeout)`;
    return jsonError(503, message, { "retry-after": String(retryAfter) });
  }
}

function jsonError(status: number, message: string, headers: Record<string, string> = {}) {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }),
    { status, headers: { "content-type": "application/json", ...headers } },
  );
}
