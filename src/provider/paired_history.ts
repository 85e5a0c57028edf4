/**
 * The provider view as a model API will accept it. Both APIs insist that
 * every tool call of an assistant message is answered right after it, once,
 * by id, and that no answer stands alone; Anthropic also wants call ids
 * unique in the whole conversation and made of `[A-Za-z0-9_-]`. A recorded
 * conversation need not be that tidy: a message may repeat a call id (the
 * repeat is answered with an error), scripts reuse ids from turn to turn, a
 * crash may leave a call unanswered. This pass makes the history well formed
 * without dropping anything the assistant should read.
 *
 * @module
 */

import type { ToolCall } from "../review/tool_call.ts";
import type { AssistantTurnMessage, ConversationMessage, ToolMessage } from "./provider.ts";

/** The answer sent for a call the conversation holds no response to. */
export const MISSING_RESPONSE = "[no response to this call was recorded]";

/** Ids the APIs accept as they are. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Returns `messages` well formed for a model API:
 *
 * - each assistant message with calls is followed by exactly one tool
 *   message per call, in call order; a call without a recorded response is
 *   answered with {@linkcode MISSING_RESPONSE} as an error;
 * - a response that answers no call of the message before it (a repeated id,
 *   a call that is not in the view) becomes a user message quoting it;
 * - call ids are unique and safe: a reused or unsafe id is renamed, the same
 *   way in the call and in its answer;
 * - assistant messages with neither text nor calls are left out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pairHistory } from "./paired_history.ts";
 * const call = { id: "call_1", name: "ls", arguments: {} };
 * const paired = pairHistory([
 *   { role: "user", content: "list" },
 *   { role: "assistant", text: "", toolCalls: [call, call] },
 *   { role: "tool", id: "call_1", content: "a b", isError: false },
 *   { role: "tool", id: "call_1", content: "repeated id", isError: true },
 * ]);
 * assert.deepEqual(paired.map((m) => m.role), ["user", "assistant", "tool", "user"]);
 * ```
 */
export function pairHistory(messages: readonly ConversationMessage[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  const ids = new UniqueIds();
  let i = 0;
  while (i < messages.length) {
    const message = messages[i++]!;
    if (message.role === "user") {
      out.push(message);
      continue;
    }
    if (message.role === "tool") {
      out.push(orphan(message));
      continue;
    }
    // The tool messages that follow this assistant message are its answers.
    const answers: ToolMessage[] = [];
    while (i < messages.length && messages[i]!.role === "tool") {
      answers.push(messages[i++] as ToolMessage);
    }
    out.push(...exchange(message, answers, ids));
  }
  return out;
}

/** One assistant message and the responses recorded after it, paired. */
function exchange(
  message: AssistantTurnMessage,
  answers: readonly ToolMessage[],
  ids: UniqueIds,
): ConversationMessage[] {
  const calls: ToolCall[] = [];
  const answerOf = new Map<string, ToolMessage | undefined>();
  for (const call of message.toolCalls) {
    if (answerOf.has(call.id)) continue; // a repeated id: its error answer becomes an orphan
    answerOf.set(call.id, undefined);
    calls.push(call);
  }
  const orphans: ConversationMessage[] = [];
  for (const answer of answers) {
    if (answerOf.has(answer.id) && answerOf.get(answer.id) === undefined) {
      answerOf.set(answer.id, answer);
    } else {
      orphans.push(orphan(answer));
    }
  }
  if (message.text === "" && calls.length === 0) return orphans;
  const renamed = calls.map((call) => ({ ...call, id: ids.claim(call.id) }));
  const out: ConversationMessage[] = [{
    role: "assistant",
    text: message.text,
    toolCalls: renamed,
  }];
  calls.forEach((call, n) => {
    const id = renamed[n]!.id;
    const answer = answerOf.get(call.id);
    out.push(
      answer === undefined
        ? { role: "tool", id, content: MISSING_RESPONSE, isError: true }
        : { ...answer, id },
    );
  });
  return [...out, ...orphans];
}

/** A response with no call to answer, kept as something the assistant can read. */
function orphan(answer: ToolMessage): ConversationMessage {
  const kind = answer.isError ? "error response" : "response";
  return {
    role: "user",
    content: `[tool ${kind} to call ${answer.id}, which has no matching call]\n${answer.content}`,
  };
}

/** Hands out each id once; a reused or unsafe id gets a fresh safe one. */
class UniqueIds {
  readonly #used = new Set<string>();

  claim(id: string): string {
    let base = SAFE_ID.test(id) ? id : id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 56) || "call";
    if (!this.#used.has(base)) {
      this.#used.add(base);
      return base;
    }
    base = base.slice(0, 56);
    let n = 2;
    while (this.#used.has(`${base}_${n}`)) n++;
    this.#used.add(`${base}_${n}`);
    return `${base}_${n}`;
  }
}
