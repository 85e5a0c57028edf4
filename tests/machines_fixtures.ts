/**
 * Shared fixtures of the machine tests: a scripted provider, a scripted
 * prompter, a notice sink that collects lines, a fixed clock, a policy table
 * and a turn input built from them over an in-memory stream.
 *
 * @module
 */

import type {
  AssistantMessage,
  Provider,
  ProviderRequest,
  ToolSpec,
} from "../src/provider/provider.ts";
import { formatNotice, type NoticeFact } from "../src/review/notice.ts";
import type { ToolCall } from "../src/review/tool_call.ts";
import type { Executor } from "../src/service/executor.ts";
import { SizeThreshold } from "../src/size/size_threshold.ts";
import { MemoryStreamStore } from "../src/stream/memory_stream_store.ts";
import type { ConversationStream } from "../src/stream/stream_store.ts";
import type { StreamEvent, ToolCallResponseEvent } from "../src/stream/events.ts";
import type { Prompter, ResultDecision, RunDecision } from "../src/machines/prompter.ts";
import type {
  Clock,
  NoticeSink,
  PolicyFor,
  ToolPolicy,
} from "../src/machines/turn_dependencies.ts";
import type { TurnInput } from "../src/machines/turn_machine.ts";

/** The cancellation response of the test policies. */
export const CANCELLED = "The user cancelled this tool call.";

/** One scripted provider step: an answer, a rejection, or a function of the request. */
export type ProviderStep =
  | AssistantMessage
  | Error
  | ((request: ProviderRequest) => AssistantMessage | Promise<AssistantMessage>);

/** A provider that replays `steps`, one per request, and keeps the requests. */
export class ScriptedProvider implements Provider {
  readonly requests: ProviderRequest[] = [];
  readonly #steps: ProviderStep[];

  constructor(steps: readonly ProviderStep[]) {
    this.#steps = [...steps];
  }

  complete(request: ProviderRequest): Promise<AssistantMessage> {
    this.requests.push(request);
    const step = this.#steps.shift();
    if (step === undefined) return Promise.reject(new Error("the script has no more cycles"));
    if (step instanceof Error) return Promise.reject(step);
    if (typeof step === "function") return Promise.resolve(step(request));
    return Promise.resolve(step);
  }
}

/** An assistant message with tool calls `[name, content-ish args]`. */
export function callsMessage(
  text: string,
  calls: readonly [id: string, name: string][],
): AssistantMessage {
  return { text, toolCalls: calls.map(([id, name]) => ({ id, name, arguments: {} })) };
}

/** The final answer of a turn. */
export function answer(text: string): AssistantMessage {
  return { text, toolCalls: [] };
}

type Asked = (call: ToolCall, content: string, signal: AbortSignal) => Promise<ResultDecision>;

/** A prompter answering from functions; unscripted methods reject. */
export function scriptedPrompter(script: {
  ask?: Asked;
  edit?: Asked;
  approveRun?: (call: ToolCall, mode: "ask" | "edit") => Promise<RunDecision>;
} = {}): Prompter & { readonly seen: string[] } {
  const seen: string[] = [];
  const prompter: Prompter & { readonly seen: string[] } = {
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
  if (script.approveRun !== undefined) {
    const approveRun = script.approveRun;
    prompter.approveRun = (call, mode) => {
      seen.push(`approve ${call.id} ${mode}`);
      return approveRun(call, mode);
    };
  }
  return prompter;
}

/** A notice sink that keeps the facts and their printed lines. */
export class CollectingSink implements NoticeSink {
  readonly facts: NoticeFact[] = [];
  readonly lines: string[] = [];
  notice(fact: NoticeFact): void {
    this.facts.push(fact);
    this.lines.push(formatNotice(fact));
  }
}

/** A clock stopped at 2025-01-01T00:00:00Z. */
export const fixedClock: Clock = { now: () => new Date("2025-01-01T00:00:00.000Z") };

/** A policy: unattended, 256KB, overridable. */
export function policy(overrides: Partial<ToolPolicy> = {}): ToolPolicy {
  return {
    result: "unattended",
    run: "unattended",
    sizeThreshold: SizeThreshold.DEFAULT,
    cancellationResponse: CANCELLED,
    ...overrides,
  };
}

/** A policy lookup with per-tool overrides over {@linkcode policy}. */
export function policies(overrides: Readonly<Record<string, Partial<ToolPolicy>>> = {}): PolicyFor {
  return (tool) => policy(overrides[tool] ?? {});
}

/** What a turn test needs besides the input: the store and the collected notices. */
export interface TurnHarness {
  readonly store: MemoryStreamStore;
  readonly stream: ConversationStream;
  readonly sink: CollectingSink;
  readonly provider: ScriptedProvider;
  readonly input: TurnInput;
}

/** Builds a turn input over a fresh in-memory store. */
export async function turnHarness(options: {
  steps: readonly ProviderStep[];
  executor: Executor;
  policyFor?: PolicyFor;
  prompter?: Prompter;
  tools?: readonly string[];
  store?: MemoryStreamStore;
  signal?: AbortSignal;
  maxCycles?: number;
}): Promise<TurnHarness> {
  const store = options.store ?? new MemoryStreamStore();
  const stream = await store.open("conversation-1");
  const sink = new CollectingSink();
  const provider = new ScriptedProvider(options.steps);
  const tools: ToolSpec[] = (options.tools ?? []).map((name) => ({
    name,
    description: `the ${name} tool`,
    inputSchema: { type: "object" },
  }));
  const input: TurnInput = {
    turnId: "turn-1",
    prompt: "do the thing",
    provider,
    tools,
    stream,
    executor: options.executor,
    prompter: options.prompter ?? scriptedPrompter(),
    policyFor: options.policyFor ?? policies(),
    noticeSink: sink,
    clock: fixedClock,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.maxCycles === undefined ? {} : { maxCycles: options.maxCycles }),
  };
  return { store, stream, sink, provider, input };
}

/** The `tool_call_response` events among `events`. */
export function responsesOf(events: readonly StreamEvent[]): ToolCallResponseEvent[] {
  return events.filter((event): event is ToolCallResponseEvent =>
    event.type === "tool_call_response"
  );
}

/** UTF-8 bytes of `text` (measured independently of the code under test). */
export function bytesOf(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** The cut docs/caps.md prescribes for an ASCII `text`: longest head + newline + marker. */
export function expectedCut(text: string, capBytes: number, marker: string): string {
  const tail = `\n${marker}`;
  return text.slice(0, capBytes - bytesOf(tail)) + tail;
}
