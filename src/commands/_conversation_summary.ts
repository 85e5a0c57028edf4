/**
 * The facts `conversation ls` shows for one conversation: how big it is,
 * its largest tool response as the model is sent it, how many responses the model is still sent
 * over today's `size_threshold` (compactions applied), and what its
 * full-result files take.
 *
 * @module
 */

import type { SpillwayConfig } from "../config/spillway_config.ts";
import { conversationView, type ViewedResponse } from "../stream/provider_view.ts";
import type { StreamEvent } from "../stream/events.ts";
import { resultFiles } from "./_result_files.ts";
import type { Workspace } from "./_workspace.ts";

/** One conversation, summed up. */
export interface ConversationSummary {
  readonly id: string;
  /** Where its log is. */
  readonly location: string;
  /** When its first turn started (ISO 8601), if it has one; a gateway conversation's start otherwise. */
  readonly started?: string;
  /** A `spillway serve` conversation's client, as its `session_start` recorded it. */
  readonly client?: string;
  /** The MCP protocol revision a `spillway serve` conversation's client spoke. */
  readonly protocol?: string;
  readonly turns: number;
  readonly events: number;
  /** Bytes of its log (for the database: of its events as JSON lines). */
  readonly bytes: number;
  /**
   * Its largest tool response as the model is sent it today (compactions
   * applied): `sentBytes`, and `bytes` as the log records it.
   */
  readonly largest?: {
    readonly id: string;
    readonly tool: string;
    readonly bytes: number;
    readonly sentBytes: number;
  };
  /** Responses the model is still sent that are over their tool's size_threshold today. */
  readonly overThreshold: number;
  /** Its full-result files. */
  readonly results: { readonly files: number; readonly bytes: number };
  /** Load warnings (a torn last line skipped). */
  readonly warnings: readonly string[];
}

/**
 * Reads and sums up conversation `id` (without locking it).
 *
 * @throws {SpillwayError} `store_failed` when its log cannot be read
 */
export async function summarizeConversation(
  workspace: Workspace,
  id: string,
  config: SpillwayConfig,
): Promise<ConversationSummary> {
  const [loaded, facts, files] = await Promise.all([
    workspace.conversations.read(id),
    workspace.conversations.describe(id),
    resultFiles(workspace.resultsDir(id)),
  ]);
  const location = facts.location;
  const { responses } = conversationView(loaded.events);
  // Largest as sent: a compacted response no longer weighs on the conversation.
  const largest = responses.reduce<ViewedResponse | undefined>(
    (best, r) => (best === undefined || r.viewBytes > best.viewBytes ? r : best),
    undefined,
  );
  const session = loaded.events.find((e) => e.type === "session_start");
  const started = loaded.events.find((e) => e.type === "turn_start")?.at ?? session?.at;
  return {
    id,
    location,
    ...(started === undefined ? {} : { started }),
    ...(session === undefined ? {} : { client: session.client, protocol: session.protocol }),
    turns: loaded.events.filter((e: StreamEvent) => e.type === "turn_start").length,
    events: loaded.events.length,
    bytes: facts.bytes,
    ...(largest === undefined ? {} : {
      largest: {
        id: largest.id,
        tool: largest.tool,
        bytes: largest.recordedBytes,
        sentBytes: largest.viewBytes,
      },
    }),
    overThreshold: responses.filter((r) => overThreshold(r, config)).length,
    results: {
      files: files.length,
      bytes: files.reduce((sum, file) => sum + file.bytes, 0),
    },
    warnings: loaded.warnings,
  };
}

/** Whether the model is still sent more of `response` than its tool's size_threshold allows today. */
export function overThreshold(response: ViewedResponse, config: SpillwayConfig): boolean {
  const limit = config.tool(response.tool === "" ? "*" : response.tool).sizeThreshold().bytes;
  return limit !== undefined && response.viewBytes > limit.bytes;
}
