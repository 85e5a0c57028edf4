/**
 * Shared fixtures of the machine tests: assistant messages, a policy table,
 * and a turn input built from the doubles of `src/testing` over an in-memory
 * stream.
 *
 * @module
 */

import type { AssistantMessage, ToolSpec } from "../src/provider/provider.ts";
import type { Executor } from "../src/service/executor.ts";
import { SizeThreshold } from "../src/size/size_threshold.ts";
import { MemoryStreamStore } from "../src/stream/memory_stream_store.ts";
import type { ConversationStream } from "../src/stream/stream_store.ts";
import type { StreamEvent, ToolCallResponseEvent } from "../src/stream/events.ts";
import type { Prompter } from "../src/machines/prompter.ts";
import type { PolicyFor, ToolPolicy } from "../src/machines/turn_dependencies.ts";
import type { TurnInput } from "../src/machines/turn_machine.ts";
import { CollectingNoticeSink } from "../src/testing/collecting_notice_sink.ts";
import { fixedClock } from "../src/testing/fixed_clock.ts";
import { scriptedPrompter } from "../src/testing/scripted_prompter.ts";
import { type ProviderStep, StepProvider } from "../src/testing/step_provider.ts";

/** The cancellation response of the test policies. */
export const CANCELLED = "The user cancelled this tool call.";

/** An assistant message with tool calls `[id, name]` and empty arguments. */
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
  readonly sink: CollectingNoticeSink;
  readonly provider: StepProvider;
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
  const sink = new CollectingNoticeSink();
  const provider = new StepProvider(options.steps);
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
    clock: fixedClock(),
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
