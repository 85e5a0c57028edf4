import assert from "node:assert/strict";
import { enableVerboseLogging } from "../terminal/verbose_logging.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import { anthropicAnswer, anthropicError } from "../testing/anthropic_wire.ts";
import { FakeModelServer } from "../testing/fake_model_server.ts";
import { DEFAULT_ANTHROPIC_MAX_TOKENS } from "../config/llm_provider_config.ts";
import { parseConfig } from "../config/parse_config.ts";
import { AnthropicProvider, type AnthropicProviderOptions } from "./anthropic_provider.ts";
import { providerFromConfig } from "./provider_from_config.ts";
import type { ConversationMessage, ProviderRequest } from "./provider.ts";

/** This client takes a zero Retry-After as "no advice" and backs off; a millisecond is advice. */
const RETRY_NOW = { "retry-after": "0.001" };

const TOOLS = [{
  name: "read_log",
  description: "Reads the build log.",
  inputSchema: { type: "object", properties: { path: { type: "string" } } },
}];

function request(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    messages: [{ role: "user", content: "why did the build fail?" }],
    tools: TOOLS,
    cycle: 0,
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function withServer(
  fn: (
    server: FakeModelServer,
    provider: (o?: Partial<AnthropicProviderOptions>) => AnthropicProvider,
  ) => Promise<void>,
): Promise<void> {
  const server = FakeModelServer.start();
  try {
    await fn(server, (options = {}) =>
      new AnthropicProvider({
        model: "claude-test",
        baseUrl: server.url,
        apiKey: "sk-ant-test",
        ...options,
      }));
  } finally {
    await server.close();
  }
}

async function failure(promise: Promise<unknown>): Promise<SpillwayError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SpillwayError, String(error));
    assert.equal(error.code, "provider_failed");
    return error;
  }
  assert.fail("expected the request to fail");
}

Deno.test("AnthropicProvider streams the text and assembles tool_use blocks from input_json_delta pieces", async () => {
  await withServer(async (server, provider) => {
    server.reply(anthropicAnswer({
      text: "Reading both logs.",
      toolCalls: [
        { id: "toolu_a", name: "read_log", arguments: { path: "build.log" } },
        { id: "toolu_b", name: "read_log", arguments: { path: "test.log", lines: [1, 2] } },
        { id: "toolu_c", name: "list", arguments: "" },
      ],
      pieces: 4,
      usage: { input: 500, output: 60 },
    }));
    const pieces: string[] = [];
    const answer = await provider().complete(request({ onText: (d) => pieces.push(d) }));
    assert.equal(answer.text, "Reading both logs.");
    assert.ok(pieces.length >= 3, `streamed in ${pieces.length} pieces`);
    assert.equal(pieces.join(""), answer.text);
    assert.deepEqual(answer.toolCalls, [
      { id: "toolu_a", name: "read_log", arguments: { path: "build.log" } },
      { id: "toolu_b", name: "read_log", arguments: { path: "test.log", lines: [1, 2] } },
      { id: "toolu_c", name: "list", arguments: {} },
    ]);
    assert.deepEqual(answer.usage, { inputTokens: 500, outputTokens: 60 });
  });
});

Deno.test("AnthropicProvider passes on a tool_use whose input_json_delta pieces are not a JSON object, with their text", async () => {
  await withServer(async (server, provider) => {
    server.reply(anthropicAnswer({
      toolCalls: [
        { id: "toolu_a", name: "read_log", arguments: '{"path": "bu' },
        { id: "toolu_b", name: "read_log", arguments: '"build.log"' },
        { id: "toolu_c", name: "read_log", arguments: { path: "build.log" } },
      ],
      pieces: 3,
    }));
    const answer = await provider().complete(request());
    assert.deepEqual(answer.toolCalls, [
      { id: "toolu_a", name: "read_log", arguments: {}, invalidArguments: '{"path": "bu' },
      { id: "toolu_b", name: "read_log", arguments: {}, invalidArguments: '"build.log"' },
      { id: "toolu_c", name: "read_log", arguments: { path: "build.log" } },
    ]);
  });
});

Deno.test("AnthropicProvider marks the last tool_use of an answer stopped by max_tokens, when its input is cut", async () => {
  await withServer(async (server, provider) => {
    server.reply(anthropicAnswer({
      toolCalls: [
        { id: "toolu_a", name: "read_log", arguments: '"build.log"' },
        { id: "toolu_b", name: "read_log", arguments: '{"path": "bu' },
      ],
      atOutputLimit: true,
    }));
    assert.deepEqual((await provider({ maxTokens: 512 }).complete(request())).toolCalls, [
      // Not the last block: the limit did not cut it, it is wrong as it was sent.
      { id: "toolu_a", name: "read_log", arguments: {}, invalidArguments: '"build.log"' },
      {
        id: "toolu_b",
        name: "read_log",
        arguments: {},
        invalidArguments: '{"path": "bu',
        outputLimit: {
          stop: 'stop_reason "max_tokens"',
          raise: "max_tokens under [providers.llm.anthropic], now 512",
        },
      },
    ]);
    // A normal stop: nothing to say about a limit.
    server.reply(anthropicAnswer({
      toolCalls: [{ id: "toolu_c", name: "read_log", arguments: '{"path": "bu' }],
    }));
    assert.deepEqual((await provider().complete(request())).toolCalls, [
      { id: "toolu_c", name: "read_log", arguments: {}, invalidArguments: '{"path": "bu' },
    ]);
  });
});

Deno.test("AnthropicProvider sends the model, max_tokens, the tools, tool_result turns and the key", async () => {
  await withServer(async (server, provider) => {
    server.reply(anthropicAnswer({ text: "ok" }));
    const history: ConversationMessage[] = [
      { role: "user", content: "list" },
      {
        role: "assistant",
        text: "Listing.",
        toolCalls: [{ id: "c1", name: "ls", arguments: { p: 1 } }],
      },
      { role: "tool", id: "c1", content: "no such dir", isError: true },
      { role: "user", content: "and now?" },
    ];
    await provider().complete(request({ messages: history }));
    const sent = server.requests[0]!;
    assert.equal(sent.path, "/v1/messages");
    // This client sends the key as a bearer token.
    assert.equal(sent.headers.get("authorization"), "Bearer sk-ant-test");
    assert.equal(sent.body["model"], "claude-test");
    assert.equal(sent.body["max_tokens"], DEFAULT_ANTHROPIC_MAX_TOKENS);
    assert.equal(sent.body["stream"], true);
    assert.deepEqual(sent.body["tools"], [{
      name: "read_log",
      description: "Reads the build log.",
      input_schema: TOOLS[0]!.inputSchema,
    }]);
    assert.deepEqual(sent.body["messages"], [
      { role: "user", content: [{ type: "text", text: "list" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Listing." },
          { type: "tool_use", id: "c1", name: "ls", input: { p: 1 } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "c1", content: "no such dir", is_error: true },
          { type: "text", text: "and now?" },
        ],
      },
    ]);
  });
});

Deno.test("AnthropicProvider sends max_tokens from [providers.llm.anthropic], 8192 by default", async () => {
  await withServer(async (server) => {
    const config = (extra: string) =>
      parseConfig(`
[assistant.model]
id = "anthropic/claude-test"
[providers.llm.anthropic]
base_url = "${server.url}"
${extra}
`);
    for (const [extra, sent] of [["", 8192], ["max_tokens = 32000", 32000]] as const) {
      server.reply(anthropicAnswer({ text: "ok" }));
      const provider = await providerFromConfig(config(extra), { env: {} });
      await provider!.complete(request());
      assert.equal(server.requests.at(-1)!.body["max_tokens"], sent);
    }
    assert.equal(DEFAULT_ANTHROPIC_MAX_TOKENS, 8192);
  });
});

Deno.test("AnthropicProvider refuses a maxTokens that is not a whole number of at least 1", () => {
  for (const maxTokens of [0, -1, 1.5, Number.NaN]) {
    assert.throws(
      () => new AnthropicProvider({ model: "claude-test", maxTokens }),
      new RangeError(`maxTokens must be a whole number of at least 1, got \`${maxTokens}\``),
    );
  }
});

Deno.test("AnthropicProvider without a key sends no key header", async () => {
  await withServer(async (server, provider) => {
    server.reply(anthropicAnswer({ text: "ok" }));
    await provider({ apiKey: "" }).complete(request({ tools: [] }));
    assert.equal(server.requests[0]!.headers.get("x-api-key"), null);
    assert.equal(server.requests[0]!.headers.get("authorization"), null);
    assert.equal("tools" in server.requests[0]!.body, false);
  });
});

Deno.test("AnthropicProvider retries a 429 and a 529, then succeeds; gives up after its retries", async () => {
  await withServer(async (server, provider) => {
    const limited = anthropicError(
      429,
      "rate_limit_error",
      "Number of request tokens has exceeded your per-minute rate limit",
      RETRY_NOW,
    );
    const overloaded = anthropicError(529, "overloaded_error", "Overloaded", RETRY_NOW);
    server.reply(limited, overloaded, anthropicAnswer({ text: "made it" }));
    assert.equal((await provider().complete(request())).text, "made it");
    assert.equal(server.requests.length, 3);
    server.reply(limited, limited);
    const error = await failure(provider({ maxRetries: 1 }).complete(request()));
    assert.equal(server.requests.length, 5);
    assert.equal(
      error.message,
      `rate limited by ${server.url} (429), still after 1 retry: ` +
        "Number of request tokens has exceeded your per-minute rate limit",
    );
  });
});

Deno.test("AnthropicProvider names each failure a person hits, one line each", async () => {
  await withServer(async (server, provider) => {
    const cases: [ReturnType<typeof anthropicError>, string, string][] = [
      [
        anthropicError(401, "authentication_error", "invalid x-api-key"),
        "auth",
        `${server.url} refused the API key in ANTHROPIC_API_KEY (401): invalid x-api-key`,
      ],
      [
        anthropicError(404, "not_found_error", "model: claude-test"),
        "not_found",
        `anthropic/claude-test was not found at ${server.url} (404): model: claude-test ` +
        "(check the model name, and base_url if the server is not the public one)",
      ],
      [
        anthropicError(
          400,
          "invalid_request_error",
          "prompt is too long: 215311 tokens > 200000 maximum",
        ),
        "context_window",
        "the conversation is too long for anthropic/claude-test's context window: " +
        "prompt is too long: 215311 tokens > 200000 maximum",
      ],
      [
        anthropicError(413, "request_too_large", "Request exceeds the maximum size"),
        "context_window",
        "the conversation is too long for anthropic/claude-test's context window: " +
        "Request exceeds the maximum size",
      ],
    ];
    for (const [reply, kind, message] of cases) {
      server.reply(reply);
      const error = await failure(provider({ maxRetries: 0 }).complete(request()));
      assert.equal(error.message, message);
      assert.equal(error.details["kind"], kind);
    }
  });
});

Deno.test("AnthropicProvider reports an error event in the stream and a stream cut off", async () => {
  await withServer(async (server, provider) => {
    server.reply({
      events: [
        'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"c","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      ],
    });
    const broken = await failure(provider().complete(request()));
    assert.equal(broken.message, `${server.url} broke off the answer: Overloaded`);
    assert.equal(broken.details["kind"], "server");
    server.reply(anthropicAnswer({ text: "half", truncated: true }));
    const cut = await failure(provider().complete(request()));
    assert.equal(
      cut.message,
      "anthropic/claude-test sent a malformed answer: the stream ended before the answer did (no message_stop)",
    );
  });
});

Deno.test("AnthropicProvider stops when cancelled mid-answer, after passing on what arrived", async () => {
  await withServer(async (server, provider) => {
    server.reply(
      anthropicAnswer({ text: "Let me think about that", truncated: true }, { hold: true }),
    );
    const cancel = new AbortController();
    const pieces: string[] = [];
    const error = await failure(
      provider().complete(request({
        signal: cancel.signal,
        onText: (delta) => {
          pieces.push(delta);
          if (pieces.join("") === "Let me think about that") cancel.abort();
        },
      })),
    );
    assert.equal(error.details["kind"], "cancelled");
    assert.equal(pieces.join(""), "Let me think about that");
  });
});

Deno.test("AnthropicProvider says the SDK's deprecated-model warning once, on one line, never on the console", async () => {
  await withServer(async (server, provider) => {
    server.reply(anthropicAnswer({ text: "one" }), anthropicAnswer({ text: "two" }));
    const notices: string[] = [];
    const consoleWarnings: unknown[][] = [];
    const original = console.warn;
    console.warn = (...parts: unknown[]) => void consoleWarnings.push(parts);
    try {
      const deprecated = provider({
        model: "claude-sonnet-4-5",
        notice: (text) => notices.push(text),
      });
      assert.equal((await deprecated.complete(request())).text, "one");
      assert.equal((await deprecated.complete(request())).text, "two");
    } finally {
      console.warn = original;
    }
    assert.deepEqual(consoleWarnings, []);
    assert.deepEqual(notices, [
      "warning: anthropic/claude-sonnet-4-5: The model 'claude-sonnet-4-5' is deprecated and " +
      "will reach end-of-life on November 30th, 2026. Please migrate to a newer model. Visit " +
      "https://docs.anthropic.com/en/docs/resources/model-deprecations for more information.",
    ]);
  });
});

Deno.test("AnthropicProvider without a notice sink logs the SDK's deprecated-model warning once, never on the console", async () => {
  await withServer(async (server, provider) => {
    server.reply(anthropicAnswer({ text: "one" }), anthropicAnswer({ text: "two" }));
    const lines: string[] = [];
    const consoleWarnings: unknown[][] = [];
    const original = console.warn;
    console.warn = (...parts: unknown[]) => void consoleWarnings.push(parts);
    const undo = await enableVerboseLogging(1, (line) => lines.push(line));
    try {
      const deprecated = provider({ model: "claude-sonnet-4-5" });
      assert.equal((await deprecated.complete(request())).text, "one");
      assert.equal((await deprecated.complete(request())).text, "two");
    } finally {
      await undo();
      console.warn = original;
    }
    assert.deepEqual(consoleWarnings, []);
    const warnings = lines.filter((line) => line.includes("is deprecated"));
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /\[WRN\] spillway·provider·anthropic: "warning: anthropic\/claude-sonnet-4-5: The model 'claude-sonnet-4-5' is deprecated and /,
    );
  });
});
