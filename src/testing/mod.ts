/**
 * Test doubles for spillway and for applications that embed it
 * (`import … from "@spillway/spillway/testing"`): a provider that replays
 * steps, the provider that replays a TOML script (`query --script`), a
 * scripted prompter, a notice sink that collects lines, a fixed
 * clock, a scripted tool source, an in-memory stream store with fault
 * injection, a `MockExecutor` with canned results, and the contracts every
 * executor, every tool source and every stream store pass. This module only re-exports.
 *
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRuntime } from "../mod.ts";
 * import { CollectingNoticeSink, FakeToolSource, StepProvider, text } from "./mod.ts";
 * const sink = new CollectingNoticeSink();
 * const runtime = await createRuntime({
 *   workspace: await Deno.makeTempDir(),
 *   provider: new StepProvider([
 *     { text: "Looking.", toolCalls: [{ id: "c1", name: "dump", arguments: {} }] },
 *     { text: "Done.", toolCalls: [] },
 *   ]),
 *   toolSources: [new FakeToolSource("fake", { dump: () => Promise.resolve(text("x".repeat(300_000))) })],
 *   noticeSink: sink,
 * });
 * const turn = await runtime.query("dump it");
 * assert.equal(turn.status, "finished");
 * assert.deepEqual(sink.lines, ["dump: sent 256.0 KB of 292.9 KB to the assistant (size_threshold)"]);
 * await runtime.close();
 * ```
 *
 * @module
 */

export { type ProviderStep, StepProvider } from "./step_provider.ts";
export {
  type PrompterScript,
  type ScriptedAnswer,
  type ScriptedPrompter,
  scriptedPrompter,
} from "./scripted_prompter.ts";
export { CollectingNoticeSink } from "./collecting_notice_sink.ts";
export { FIXED_INSTANT, fixedClock } from "./fixed_clock.ts";
export { type FakeTool, FakeToolSource, text, untilAborted } from "./fake_tool_source.ts";
export {
  type MockBehavior,
  MockExecutor,
  type MockRelease,
  type MockResult,
  type MockTool,
} from "./mock_executor.ts";
export {
  CONTRACT_TOOLS,
  defineExecutorContract,
  type ExecutorFactory,
  type ExecutorUnderTest,
} from "./executor_contract.ts";
export {
  CONTRACT_TIMEOUT_MS,
  type ContractContext,
  type ContractTools,
  defineToolSourceContract,
  Milestones,
  type SourceUnderTest,
  type ToolSourceContractOptions,
} from "./tool_source_contract.ts";
export { type BlobStoreUnderTest, defineBlobStoreContract } from "./blob_store_contract.ts";
export {
  defineStreamStoreContract,
  SAMPLE_EVENTS,
  type StoreUnderTest,
} from "./stream_store_contract.ts";
export {
  type FaultSwitch,
  MemoryStreamStore,
  type MemoryStreamStoreOptions,
} from "../stream/memory_stream_store.ts";
export {
  parseScript,
  type Script,
  type ScriptCycle,
  ScriptedProvider,
} from "../provider/scripted_provider.ts";
export { FakeModelServer, type FakeReply, type RecordedRequest } from "./fake_model_server.ts";
export {
  openAiAnswer,
  openAiError,
  openAiEvents,
  splitText,
  type WireAnswer,
  type WireToolCall,
} from "./openai_wire.ts";
export { anthropicAnswer, anthropicError, anthropicEvents } from "./anthropic_wire.ts";
