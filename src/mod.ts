/**
 * spillway: an actor-model runtime that executes LLM tool calls and bounds
 * what they return before it is recorded into the conversation and delivered
 * to the model. This module is the public API for an application that embeds
 * it; it only re-exports. Test doubles and the contract suites are in
 * `./testing` (src/testing/mod.ts).
 *
 * ```ts
 * import assert from "node:assert/strict";
 * import { capText, SizeThreshold } from "./mod.ts";
 * const cap = SizeThreshold.parse("1KB").bytes!.bytes;
 * assert.ok(capText("x".repeat(5000), cap).bytes <= 1024);
 * ```
 *
 * @module
 */

// The runtime, its options and what a turn returns.
export {
  createRuntime,
  type InspectionEventLike,
  type ProviderLike,
  type QueryOptions,
  type QueryResult,
  type Runtime,
  type RuntimeOptions,
} from "./runtime/create_runtime.ts";
export type { TurnOutput } from "./machines/turn_machine.ts";
// The store `[store]` names (files, or a PostgreSQL database), for `store` and `blobs`.
export { type OpenedStore, openStore } from "./runtime/open_store.ts";
export type {
  AssistantMessage,
  AssistantTurnMessage,
  ConversationMessage,
  Provider,
  ProviderRequest,
  TokenUsage,
  ToolMessage,
  ToolSpec,
  UserMessage,
} from "./provider/provider.ts";
export {
  providerFromConfig,
  type ProviderFromConfigOptions,
} from "./provider/provider_from_config.ts";
export type { Prompter, ResultDecision, RunDecision } from "./machines/prompter.ts";
export type { TurnObserver } from "./machines/turn_observer.ts";
export type { Clock, NoticeSink } from "./machines/turn_dependencies.ts";
export { formatNotice, type NoticeCause, type NoticeFact } from "./review/notice.ts";
export type { DroppedContent } from "./review/dropped_content.ts";
export type { ToolCall } from "./review/tool_call.ts";
export type { ResponseWindow, ToolCallResponse } from "./review/tool_call_response.ts";
export type {
  ContentBlock,
  EmbeddedResourceBlock,
  MediaBlock,
  NonTextBlock,
  NonTextKind,
  ResourceLinkBlock,
  StructuredContentInfo,
  TextBlock,
} from "./review/content_block.ts";

// The stores.
export type {
  ConversationStream,
  LoadedStream,
  OpenStreamOptions,
  StreamStore,
} from "./stream/stream_store.ts";
export type {
  ChatRequestEvent,
  ChatResponseEvent,
  CompactionEvent,
  RecordedBlock,
  RecordedPayload,
  SessionStartEvent,
  StreamEvent,
  ToolCallInputEvent,
  ToolCallRequestEvent,
  ToolCallResponseEvent,
  TurnEndEvent,
  TurnStartEvent,
} from "./stream/events.ts";
export { FileStreamStore } from "./stream/file_stream_store.ts";
export type { ConversationFacts, ConversationReader } from "./stream/conversation_reader.ts";

// Tool sources and the executor.
export {
  type ToolCallOptions,
  type ToolDefinition,
  ToolLostError,
  type ToolResult,
  type ToolSource,
} from "./service/tool_source.ts";
export type { TimerClock } from "./service/timer_clock.ts";
export type { BuiltinTool, BuiltinToolContext } from "./service/builtin/builtin_tool.ts";
export type { FinishedOutput, OutputFile, OutputSink } from "./service/output_sink.ts";
export type { BlobRef } from "./blobs/blob_ref.ts";
export type {
  BlobGarbage,
  BlobInfo,
  BlobStore,
  BlobWriter,
  CollectOptions,
  FinishedBlob,
  StoredBlob,
} from "./blobs/blob_store.ts";
export type {
  CallerRequest,
  LogMessage,
  ProgressUpdate,
  ToolCallRelay,
} from "./service/tool_call_relay.ts";
export type { SpilledOutput } from "./review/full_output_reference.ts";
export type {
  Acknowledgement,
  BarrierKind,
  DeliveryOutcome,
  ExecutionHandle,
  ExecutionOutcome,
  Executor,
} from "./service/executor.ts";
export type { CancellationCause } from "./service/call_cancellation.ts";

// The configuration.
export { parseConfig } from "./config/parse_config.ts";
export { loadConfig, type LoadConfigOptions } from "./config/load_config.ts";
export { SpillwayConfig } from "./config/spillway_config.ts";
export { ToolConfigWithDefaults } from "./config/tool_config_with_defaults.ts";
export type {
  InlineResults,
  ResultMode,
  ResultsFileLink,
  RunMode,
  ToolSourceRef,
} from "./config/tool_vocabulary.ts";

// Sizes and caps.
export { ByteSize } from "./size/byte_size.ts";
export { SizeThreshold } from "./size/size_threshold.ts";
export { capText, type CapTextOptions, type CapTextResult } from "./size/cap_text.ts";
export { capJson, type CapJsonOptions, type CapJsonResult } from "./size/cap_json.ts";
export { cutText, type CutTextOptions } from "./size/cut_text.ts";
export type { JsonFallback } from "./size/json_fallback.ts";
export type { JsonScan, JsonValueKind, MarkedContainer, MarkedString } from "./size/json_scan.ts";
export type {
  JsonTruncationStrategy,
  TextTruncationStrategy,
  Truncation,
  TruncationStrategy,
} from "./size/truncation.ts";
export type { TextWindow } from "./size/text_window.ts";
export { MAX_TOOL_RESPONSE_BATCH_BYTES } from "./review/max_tool_response_batch_bytes.ts";

// Errors.
export { SpillwayError, type SpillwayErrorCode } from "./errors/spillway_error.ts";
