/**
 * spillway: an actor-model runtime that executes LLM tool calls and bounds
 * what they return before it is recorded into the conversation and delivered
 * to the model. This module is the public API; it only re-exports.
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

export { ByteSize } from "./size/byte_size.ts";
export { MIN_SIZE_THRESHOLD_BYTES, SizeThreshold } from "./size/size_threshold.ts";
export { capText, type CapTextOptions, type CapTextResult } from "./size/cap_text.ts";
export type { Truncation, TruncationStrategy } from "./size/truncation.ts";
export type { TextWindow } from "./size/text_window.ts";

export { MAX_TOOL_RESPONSE_BATCH_BYTES } from "./review/max_tool_response_batch_bytes.ts";
export { formatNotice, type NoticeCause, type NoticeFact } from "./review/notice.ts";
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
export { placeholderLine } from "./review/placeholder_line.ts";
export type { DroppedContent } from "./review/dropped_content.ts";
export type { SpilledOutput } from "./review/full_output_reference.ts";

export { parseConfig } from "./config/parse_config.ts";
export { loadConfig, type LoadConfigOptions } from "./config/load_config.ts";
export {
  type ModelSetting,
  SpillwayConfig,
  type SpillwayConfigInit,
} from "./config/spillway_config.ts";
export type { LlmProviderConfig } from "./config/llm_provider_config.ts";
export type { ServeConfig } from "./config/serve_config.ts";
export type { LlmProviderName, ModelId } from "./config/model_id.ts";
export { ToolConfigWithDefaults } from "./config/tool_config_with_defaults.ts";
export type { ToolConfigKey, ToolSettings } from "./config/tool_settings.ts";
export type { ConfigValue } from "./config/config_value.ts";
export type { ConfigSource, ConfigSourceKind } from "./config/config_source.ts";
export type {
  McpHttpProviderConfig,
  McpProviderBase,
  McpProviderConfig,
  McpStdioProviderConfig,
} from "./config/mcp_provider_config.ts";
export type {
  InlineResults,
  ResultMode,
  ResultsFileLink,
  RunMode,
  ToolSourceRef,
} from "./config/tool_vocabulary.ts";

export { SpillwayError, type SpillwayErrorCode } from "./errors/spillway_error.ts";

export {
  createRuntime,
  DEFAULT_WORKSPACE,
  type InspectionEventLike,
  type ProviderLike,
  type QueryOptions,
  type QueryResult,
  type Runtime,
  type RuntimeOptions,
} from "./runtime/create_runtime.ts";
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
export {
  parseScript,
  type Script,
  type ScriptCycle,
  ScriptedProvider,
} from "./provider/scripted_provider.ts";
export type { BuiltinTool, BuiltinToolContext } from "./service/builtin/builtin_tool.ts";
export {
  type ToolCallOptions,
  type ToolDefinition,
  ToolLostError,
  type ToolResult,
  type ToolSource,
} from "./service/tool_source.ts";
export type { FinishedOutput, OutputFile, OutputSink } from "./service/output_sink.ts";
export type { BlobRef } from "./blobs/blob_ref.ts";
export type {
  CallerRequest,
  LogMessage,
  ProgressUpdate,
  ToolCallRelay,
} from "./service/tool_call_relay.ts";
export type { Prompter, ResultDecision, RunDecision } from "./machines/prompter.ts";
export type { TurnObserver } from "./machines/turn_observer.ts";
export type { Clock, NoticeSink } from "./machines/turn_dependencies.ts";
export type { TurnOutput } from "./machines/turn_machine.ts";
export type {
  ChatRequestEvent,
  ChatResponseEvent,
  CompactionEvent,
  RecordedBlock,
  RecordedPayload,
  StreamEvent,
  ToolCallRequestEvent,
  ToolCallResponseEvent,
  TurnEndEvent,
  TurnStartEvent,
} from "./stream/events.ts";
export type { ConversationStream, LoadedStream, StreamStore } from "./stream/stream_store.ts";
