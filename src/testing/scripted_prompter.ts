/**
 * A prompter double: answers `ask`, `edit` and `approveRun` from functions,
 * and keeps a line per prompt (`ask call_1 400000`: the call and the size of
 * the raw response it was shown). An unscripted prompt rejects, as a
 * terminal that went away does.
 *
 * @module
 */

import type { Prompter, ResultDecision, RunDecision } from "../machines/prompter.ts";
import type { ToolCall } from "../review/tool_call.ts";

/** Settles a raw result: the call, the raw content shown, and the cancellation signal. */
export type ScriptedAnswer = (
  call: ToolCall,
  content: string,
  signal: AbortSignal,
) => Promise<ResultDecision>;

/** What {@linkcode scriptedPrompter} answers with; each is optional. */
export interface PrompterScript {
  /** Answers `result = "ask"`. Default: rejects. */
  readonly ask?: ScriptedAnswer;
  /** Answers `result = "edit"`. Default: rejects. */
  readonly edit?: ScriptedAnswer;
  /** Answers `run = "ask"`/`"edit"`. Default: absent (such calls are not run). */
  readonly approveRun?: (call: ToolCall, mode: "ask" | "edit") => Promise<RunDecision>;
}

/** A {@linkcode Prompter} that also lists what it was asked. */
export interface ScriptedPrompter extends Prompter {
  /** One line per prompt, in order: `ask <id> <chars>`, `edit <id> <chars>`, `approve <id> <mode>`. */
  readonly seen: string[];
}

/**
 * A prompter answering from `script`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scriptedPrompter } from "./scripted_prompter.ts";
 * const prompter = scriptedPrompter({ ask: () => Promise.resolve({ kind: "deliver" }) });
 * const call = { id: "c1", name: "t", arguments: {} };
 * const offered = { id: "c1", content: "raw", isError: false };
 * assert.deepEqual(await prompter.ask(call, offered, new AbortController().signal), { kind: "deliver" });
 * assert.deepEqual(prompter.seen, ["ask c1 3"]);
 * ```
 */
export function scriptedPrompter(script: PrompterScript = {}): ScriptedPrompter {
  const seen: string[] = [];
  const prompter: ScriptedPrompter = {
    seen,
    ask(call, response, signal) {
      seen.push(`ask ${call.id} ${response.content.length}`);
      return script.ask?.(call, response.content, signal) ?? Promise.reject(new Error("no ask"));
    },
    edit(call, response, signal) {
      seen.push(`edit ${call.id} ${response.content.length}`);
      return script.edit?.(call, response.content, signal) ?? Promise.reject(new Error("no edit"));
    },
  };
  const approveRun = script.approveRun;
  if (approveRun !== undefined) {
    prompter.approveRun = (call, mode) => {
      seen.push(`approve ${call.id} ${mode}`);
      return approveRun(call, mode);
    };
  }
  return prompter;
}
