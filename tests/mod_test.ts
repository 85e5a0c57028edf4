/**
 * Keeps the two entry points honest: `src/mod.ts` (the public API) and
 * `src/testing/mod.ts` (the doubles, `./testing` in deno.json) only
 * re-export, their runtime exports are exactly the intended ones, nothing
 * inside `src/` imports `mod.ts`, and no production code depends on a double.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import * as mod from "../src/mod.ts";
import * as testing from "../src/testing/mod.ts";

const SRC = join(import.meta.dirname!, "..", "src");

Deno.test("mod.ts exports exactly the public values", () => {
  assert.deepEqual(Object.keys(mod).sort(), [
    "ByteSize",
    "FileStreamStore",
    "MAX_TOOL_RESPONSE_BATCH_BYTES",
    "SizeThreshold",
    "SpillwayConfig",
    "SpillwayError",
    "ToolConfigWithDefaults",
    "ToolLostError",
    "capJson",
    "capText",
    "createRuntime",
    "cutText",
    "formatNotice",
    "loadConfig",
    "openStore",
    "parseConfig",
    "providerFromConfig",
  ]);
  assert.equal(mod.MAX_TOOL_RESPONSE_BATCH_BYTES, 2 * 1024 * 1024);
});

// Types leave no trace at run time: read them from the export statements.
// Besides what an embedder calls, the list holds every type a public
// signature names (`deno doc --lint` refuses a public API that mentions a
// type it does not export).
Deno.test("mod.ts exports exactly these names, types included", async () => {
  assert.deepEqual(await exportedNames("mod.ts"), [
    "Acknowledgement",
    "AssistantMessage",
    "AssistantTurnMessage",
    "BarrierKind",
    "BlobGarbage",
    "BlobInfo",
    "BlobRef",
    "BlobStore",
    "BlobWriter",
    "BuiltinTool",
    "BuiltinToolContext",
    "ByteSize",
    "CallerRequest",
    "CancellationCause",
    "CapJsonOptions",
    "CapJsonResult",
    "CapTextOptions",
    "CapTextResult",
    "ChatRequestEvent",
    "ChatResponseEvent",
    "Clock",
    "CollectOptions",
    "CompactionEvent",
    "ContentBlock",
    "ConversationFacts",
    "ConversationMessage",
    "ConversationReader",
    "ConversationStream",
    "CutTextOptions",
    "DeliveryOutcome",
    "DroppedContent",
    "EmbeddedResourceBlock",
    "ExecutionHandle",
    "ExecutionOutcome",
    "Executor",
    "FileStreamStore",
    "FinishedBlob",
    "FinishedOutput",
    "InlineResults",
    "InspectionEventLike",
    "JsonFallback",
    "JsonScan",
    "JsonTruncationStrategy",
    "JsonValueKind",
    "LoadConfigOptions",
    "LoadedStream",
    "LogMessage",
    "MAX_TOOL_RESPONSE_BATCH_BYTES",
    "MarkedContainer",
    "MarkedString",
    "MediaBlock",
    "NonTextBlock",
    "NonTextKind",
    "NoticeCause",
    "NoticeFact",
    "NoticeSink",
    "OpenStreamOptions",
    "OpenedStore",
    "OutputFile",
    "OutputSink",
    "ProgressUpdate",
    "Prompter",
    "Provider",
    "ProviderFromConfigOptions",
    "ProviderLike",
    "ProviderRequest",
    "QueryOptions",
    "QueryResult",
    "RecordedBlock",
    "RecordedPayload",
    "ResourceLinkBlock",
    "ResponseWindow",
    "ResultDecision",
    "ResultMode",
    "ResultsFileLink",
    "RunDecision",
    "RunMode",
    "Runtime",
    "RuntimeOptions",
    "SessionStartEvent",
    "SizeThreshold",
    "SpilledOutput",
    "SpillwayConfig",
    "SpillwayError",
    "SpillwayErrorCode",
    "StoredBlob",
    "StreamEvent",
    "StreamStore",
    "StructuredContentInfo",
    "TextBlock",
    "TextTruncationStrategy",
    "TextWindow",
    "TimerClock",
    "TokenUsage",
    "ToolCall",
    "ToolCallInputEvent",
    "ToolCallOptions",
    "ToolCallRelay",
    "ToolCallRequestEvent",
    "ToolCallResponse",
    "ToolCallResponseEvent",
    "ToolConfigWithDefaults",
    "ToolDefinition",
    "ToolLostError",
    "ToolMessage",
    "ToolResult",
    "ToolSource",
    "ToolSourceRef",
    "ToolSpec",
    "Truncation",
    "TruncationStrategy",
    "TurnEndEvent",
    "TurnObserver",
    "TurnOutput",
    "TurnStartEvent",
    "UserMessage",
    "capJson",
    "capText",
    "createRuntime",
    "cutText",
    "formatNotice",
    "loadConfig",
    "openStore",
    "parseConfig",
    "providerFromConfig",
  ]);
});

Deno.test("testing/mod.ts exports exactly the doubles", () => {
  assert.deepEqual(Object.keys(testing).sort(), [
    "CONTRACT_TIMEOUT_MS",
    "CONTRACT_TOOLS",
    "CollectingNoticeSink",
    "FIXED_INSTANT",
    "FakeModelServer",
    "FakeToolSource",
    "MemoryStreamStore",
    "Milestones",
    "MockExecutor",
    "SAMPLE_EVENTS",
    "ScriptedProvider",
    "StepProvider",
    "anthropicAnswer",
    "anthropicError",
    "anthropicEvents",
    "defineBlobStoreContract",
    "defineExecutorContract",
    "defineStreamStoreContract",
    "defineToolSourceContract",
    "fixedClock",
    "openAiAnswer",
    "openAiError",
    "openAiEvents",
    "parseScript",
    "scriptedPrompter",
    "splitText",
    "text",
    "untilAborted",
  ]);
});

Deno.test("deno.json exports the public API, the doubles and the framework adapters", async () => {
  const config = JSON.parse(await Deno.readTextFile(join(SRC, "..", "deno.json")));
  assert.deepEqual(config.exports, {
    ".": "./src/mod.ts",
    "./testing": "./src/testing/mod.ts",
    "./ai-sdk": "./src/adapters/ai_sdk.ts",
    "./openai-agents": "./src/adapters/openai_agents.ts",
    "./langchain": "./src/adapters/langchain.ts",
    "./mastra": "./src/adapters/mastra.ts",
    "./claude-agent-sdk": "./src/adapters/claude_agent_sdk.ts",
  });
});

for (const entry of ["mod.ts", "testing/mod.ts"]) {
  Deno.test(`${entry} only re-exports`, async () => {
    const text = await Deno.readTextFile(join(SRC, entry));
    const code = text.replace(/\/\*\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    const statements = code.split(";").map((s) => s.trim()).filter((s) => s !== "");
    for (const statement of statements) {
      assert.match(
        statement,
        /^export (type )?\{[^}]*\} from "\.\.?\/[a-z_/]+\.ts"$/s,
        statement,
      );
    }
  });
}

Deno.test("no production code imports a test double", async () => {
  for await (const path of walk(SRC)) {
    if (path.includes("/testing/") || path.endsWith("_test.ts")) continue;
    const text = await Deno.readTextFile(path);
    assert.doesNotMatch(text, /from "(\.\.?\/)+(testing\/|[a-z_]+\/)*testing\//, path);
  }
});

Deno.test("nothing inside src/ imports mod.ts", async () => {
  for await (const path of walk(SRC)) {
    if (path.endsWith("/mod.ts")) continue;
    const text = await Deno.readTextFile(path);
    assert.doesNotMatch(text, /from "(\.\.?\/)+mod\.ts"/, path);
  }
});

/** The names `entry` exports, values and types, sorted. */
async function exportedNames(entry: string): Promise<string[]> {
  const text = await Deno.readTextFile(join(SRC, entry));
  const code = text.replace(/\/\*\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const names = [...code.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap(([, list]) =>
    (list ?? "").split(",").map((name) => name.trim().replace(/^type /, "")).filter((n) => n !== "")
  );
  return names.sort();
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}
