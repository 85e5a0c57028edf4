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
  /** The JSON arguments object. */
  readonly arguments: Readonly<Record<string, unknown>>;
}
