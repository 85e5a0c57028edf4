/**
 * A tool call as the assistant (or an external MCP client) asked for it.
 *
 * @module
 */

/** One request to run a tool: call id, tool name, JSON arguments. */
export interface ToolCall {
  /** The call id the assistant chose (`call_1`), unique within a conversation. */
  readonly id: string;
  /** The tool name as the assistant sees it. */
  readonly name: string;
  /** The JSON arguments object (`{}` when `invalidArguments` is set). */
  readonly arguments: Readonly<Record<string, unknown>>;
  /**
   * The arguments exactly as the model sent them, when they are not a JSON
   * object (malformed, cut short at the model's output limit, an array):
   * such a call is never run, but answered with an error response that says
   * so. Absent for every well-formed call.
   */
  readonly invalidArguments?: string;
  /**
   * Set with `invalidArguments` on the last call of an answer that stopped
   * at the model's output limit: its arguments were most likely cut short
   * there, and the error response says so. `stop` is the API's word for
   * that stop (`stop_reason "max_tokens"`), `raise` how the limit is raised.
   */
  readonly outputLimit?: { readonly stop: string; readonly raise: string };
}
