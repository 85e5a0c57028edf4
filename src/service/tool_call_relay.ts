/**
 * What a tool source may pass back to the caller while a call runs: progress,
 * log messages, and requests for the caller itself (MCP sampling,
 * elicitation and roots). `spillway serve` relays them between an upstream MCP server
 * and the client that made the call; the runtime's own executor passes none.
 *
 * @module
 */

/** One progress update (MCP `notifications/progress` without the token). */
export interface ProgressUpdate {
  /** Progress so far; increases with every update. */
  readonly progress: number;
  /** The total, when known. */
  readonly total?: number | undefined;
  /** A human-readable status line. */
  readonly message?: string | undefined;
}

/** One log message (the params of MCP `notifications/message`). */
export interface LogMessage {
  /** Its severity: `debug`, `info`, `notice`, `warning`, `error`, `critical`, `alert`, `emergency`. */
  readonly level: string;
  /** The logger's name, when given. */
  readonly logger?: string | undefined;
  /** Any JSON value. */
  readonly data: unknown;
}

/** A request the tool sends to the caller: `sampling/createMessage`, `elicitation/create` or `roots/list`. */
export interface CallerRequest {
  /** The MCP method. */
  readonly method: "sampling/createMessage" | "elicitation/create" | "roots/list";
  /** The request's params, as the tool sent them. */
  readonly params: Readonly<Record<string, unknown>>;
  /**
   * The name its server gave it, when it gave one: a 2026-07-28 server's
   * `input_required` names each request it asks. Absent for a 2025 request.
   */
  readonly key?: string;
}

/** What a caller request asks for: `"elicitation"`, `"sampling"` or `"roots"`. */
export function inputKind(
  method: CallerRequest["method"],
): "elicitation" | "sampling" | "roots" {
  if (method === "sampling/createMessage") return "sampling";
  if (method === "roots/list") return "roots";
  return "elicitation";
}

/**
 * The caller's side of a running call. Every member is optional: a caller
 * that cannot relay something leaves it out, and the source then behaves as
 * if its client did not support it.
 */
export interface ToolCallRelay {
  /**
   * Who the caller is (a `spillway serve` client session). A log message
   * that names no call goes to the caller of the calls in flight when they
   * all have the same one. Default: each call is its own caller.
   */
  readonly caller?: string;
  /** Passes a progress update on to the caller (who asked for progress). */
  readonly progress?: (update: ProgressUpdate) => void;
  /** Passes a log message on to the caller. */
  readonly log?: (message: LogMessage) => void;
  /**
   * The lowest severity the caller wants (`debug` … `emergency`), sent to
   * a 2026-07-28 server with the call (it sends logs only when asked).
   * Default: every level (`debug`); `log` filters what comes.
   */
  readonly logLevel?:
    | "debug"
    | "info"
    | "notice"
    | "warning"
    | "error"
    | "critical"
    | "alert"
    | "emergency";
  /**
   * What the caller can be asked (its client's declared capabilities:
   * `elicitation`, `sampling`, `roots`), told to a 2026-07-28 server with
   * the call so that it asks only for those. Default: whatever the source
   * declares.
   */
  readonly capabilities?: Readonly<Record<string, unknown>>;
  /**
   * Told when the server refused the call because the caller's client did
   * not declare what it needs (MCP -32021), with the capabilities it named.
   */
  readonly lacking?: (capabilities: Readonly<Record<string, unknown>>) => void;
  /**
   * Sends `request` to the caller and resolves with its answer.
   *
   * @throws when the caller cannot answer (no such capability, transport gone, an error reply)
   */
  readonly request?: (request: CallerRequest) => Promise<Readonly<Record<string, unknown>>>;
}
