import assert from "node:assert/strict";
import { SpillwayError } from "../errors/spillway_error.ts";
import { FakeModelServer } from "../testing/fake_model_server.ts";
import { openAiAnswer, openAiError } from "../testing/openai_wire.ts";
import { OpenAiProvider, type OpenAiProviderOptions } from "./openai_provider.ts";
import type { ConversationMessage, ProviderRequest } from "./provider.ts";

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
    provider: (o?: Partial<OpenAiProviderOptions>) => OpenAiProvider,
  ) => Promise<void>,
): Promise<void> {
  const server = FakeModelServer.start();
  try {
    await fn(
      server,
      (options = {}) =>
        new OpenAiProvider({
          model: "gpt-test",
          baseUrl: `${server.url}/v1`,
          apiKey: "sk-test",
          ...options,
        }),
    );
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

Deno.test("OpenAiProvider streams the text and assembles parallel calls split across chunks", async () => {
  await withServer(async (server, provider) => {
    server.reply(openAiAnswer({
      text: "Reading both logs.",
      toolCalls: [
        { id: "call_a", name: "read_log", arguments: { path: "build.log" } },
        { id: "call_b", name: "read_log", arguments: { path: "test.log", lines: [1, 2, 3] } },
      ],
      pieces: 4,
      usage: { input: 321, output: 45 },
    }));
    const pieces: string[] = [];
    const answer = await provider().complete(request({ onText: (d) => pieces.push(d) }));
    assert.equal(answer.text, "Reading both logs.");
    assert.ok(pieces.length >= 3, `streamed in ${pieces.length} pieces`);
    assert.equal(pieces.join(""), answer.text);
    assert.deepEqual(answer.toolCalls, [
      { id: "call_a", name: "read_log", arguments: { path: "build.log" } },
      { id: "call_b", name: "read_log", arguments: { path: "test.log", lines: [1, 2, 3] } },
    ]);
    assert.deepEqual(answer.usage, { inputTokens: 321, outputTokens: 45 });
  });
});

Deno.test("OpenAiProvider sends the model, the tools, the mapped history and the key", async () => {
  await withServer(async (server, provider) => {
    server.reply(openAiAnswer({ text: "ok" }));
    const history: ConversationMessage[] = [
      { role: "user", content: "list" },
      { role: "assistant", text: "Listing.", toolCalls: [{ id: "c1", name: "ls", arguments: {} }] },
      { role: "tool", id: "c1", content: "no such dir", isError: true },
      { role: "user", content: "and now?" },
    ];
    await provider().complete(request({ messages: history }));
    const sent = server.requests[0]!;
    assert.equal(sent.path, "/v1/chat/completions");
    assert.equal(sent.headers.get("authorization"), "Bearer sk-test");
    assert.equal(sent.body["model"], "gpt-test");
    assert.equal(sent.body["stream"], true);
    assert.deepEqual(sent.body["stream_options"], { include_usage: true });
    assert.deepEqual(sent.body["tools"], [{
      type: "function",
      function: {
        name: "read_log",
        description: "Reads the build log.",
        parameters: TOOLS[0]!.inputSchema,
      },
    }]);
    assert.deepEqual(sent.body["messages"], [
      { role: "user", content: "list" },
      {
        role: "assistant",
        content: "Listing.",
        tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", content: "no such dir" },
      { role: "user", content: "and now?" },
    ]);
  });
});

Deno.test("OpenAiProvider without a key sends no Authorization header, and no tools when there are none", async () => {
  await withServer(async (server, provider) => {
    server.reply(openAiAnswer({ text: "ok" }));
    await provider({ apiKey: "" }).complete(request({ tools: [] }));
    assert.equal(server.requests[0]!.headers.get("authorization"), null);
    assert.equal("tools" in server.requests[0]!.body, false);
  });
});

Deno.test("OpenAiProvider retries a 429 (honouring Retry-After) and a 500, then succeeds", async () => {
  await withServer(async (server, provider) => {
    server.reply(
      openAiError(429, "Rate limit reached for gpt-test", {
        type: "requests",
        code: "rate_limit_exceeded",
        headers: { "retry-after": "0" },
      }),
      openAiError(500, "The server had an error", {
        type: "server_error",
        headers: { "retry-after-ms": "0" },
      }),
      openAiAnswer({ text: "made it" }),
    );
    const answer = await provider().complete(request());
    assert.equal(answer.text, "made it");
    assert.equal(server.requests.length, 3);
  });
});

Deno.test("OpenAiProvider gives up on a rate limit after its retries, in one line", async () => {
  await withServer(async (server, provider) => {
    const limited = openAiError(429, "Rate limit reached for gpt-test in organization org-1", {
      type: "requests",
      code: "rate_limit_exceeded",
      headers: { "retry-after": "0" },
    });
    server.reply(limited, limited, limited);
    const error = await failure(provider({ maxRetries: 2 }).complete(request()));
    assert.equal(server.requests.length, 3);
    assert.equal(
      error.message,
      `rate limited by ${server.url}/v1 (429), still after 2 retries: ` +
        "Rate limit reached for gpt-test in organization org-1",
    );
    assert.equal(error.details["kind"], "rate_limited");
  });
});

Deno.test("OpenAiProvider names each failure a person hits, one line each", async () => {
  await withServer(async (server, provider) => {
    const cases: [ReturnType<typeof openAiError>, string, string][] = [
      [
        openAiError(401, "Incorrect API key provided: sk-test. You can find your API key at …", {
          code: "invalid_api_key",
        }),
        "auth",
        `${server.url}/v1 refused the API key in OPENAI_API_KEY (401): Incorrect API key provided: ` +
        "sk-test. You can find your API key at …",
      ],
      [
        openAiError(404, "The model `gpt-test` does not exist or you do not have access to it.", {
          code: "model_not_found",
        }),
        "not_found",
        `openai/gpt-test was not found at ${server.url}/v1 (404): The model \`gpt-test\` does not ` +
        "exist or you do not have access to it. (check the model name, and base_url if the server is not the public one)",
      ],
      [
        openAiError(
          400,
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 263917 tokens. Please reduce the length of the messages.",
          { code: "context_length_exceeded" },
        ),
        "context_window",
        "the conversation is too long for openai/gpt-test's context window: This model's maximum " +
        "context length is 128000 tokens. However, your messages resulted in 263917 tokens. Please reduce the length of the messages.",
      ],
      [
        openAiError(400, "Invalid 'messages[1].content': string too long.", {
          code: "string_above_max_length",
        }),
        "rejected",
        `${server.url}/v1 rejected the request (400): Invalid 'messages[1].content': string too long.`,
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

Deno.test("OpenAiProvider reports an unreachable server after its retries", async () => {
  // A port nobody listens on: start a server, note its port, close it.
  const closed = FakeModelServer.start();
  const url = closed.url;
  await closed.close();
  const provider = new OpenAiProvider({ model: "m", baseUrl: `${url}/v1`, maxRetries: 0 });
  const error = await failure(provider.complete(request()));
  assert.equal(error.details["kind"], "unreachable");
  assert.match(
    error.message,
    new RegExp(`^cannot reach ${url}/v1 \\(still after 0 retries\\): .*refused`, "i"),
  );
});

Deno.test("OpenAiProvider refuses a stream cut off before its end", async () => {
  await withServer(async (server, provider) => {
    server.reply(openAiAnswer({ text: "half an ans", truncated: true }));
    const cut = await failure(provider().complete(request()));
    assert.equal(
      cut.message,
      "openai/gpt-test sent a malformed answer: the stream ended before the answer did (no finish_reason)",
    );
  });
});

Deno.test("OpenAiProvider passes on a call whose arguments are not a JSON object, with their text", async () => {
  await withServer(async (server, provider) => {
    server.reply(openAiAnswer({
      toolCalls: [
        { id: "c1", name: "read_log", arguments: '{"path": "bu' },
        { id: "c2", name: "read_log", arguments: '["build.log"]' },
        { id: "c3", name: "read_log", arguments: '{"path": "build.log"}' },
      ],
    }));
    const answer = await provider().complete(request());
    assert.deepEqual(answer.toolCalls, [
      { id: "c1", name: "read_log", arguments: {}, invalidArguments: '{"path": "bu' },
      { id: "c2", name: "read_log", arguments: {}, invalidArguments: '["build.log"]' },
      { id: "c3", name: "read_log", arguments: { path: "build.log" } },
    ]);
  });
});

Deno.test("OpenAiProvider marks the last call of an answer stopped by finish_reason length, when its arguments are cut", async () => {
  await withServer(async (server, provider) => {
    const limit = {
      stop: 'finish_reason "length"',
      raise: "the server's limit on output tokens (spillway sets none)",
    };
    server.reply(openAiAnswer({
      toolCalls: [
        { id: "c1", name: "read_log", arguments: '["build.log"]' },
        { id: "c2", name: "read_log", arguments: '{"path": "bu' },
      ],
      atOutputLimit: true,
    }));
    assert.deepEqual((await provider().complete(request())).toolCalls, [
      // Not the last call: the limit did not cut it, it is wrong as it was sent.
      { id: "c1", name: "read_log", arguments: {}, invalidArguments: '["build.log"]' },
      {
        id: "c2",
        name: "read_log",
        arguments: {},
        invalidArguments: '{"path": "bu',
        outputLimit: limit,
      },
    ]);
    // Stopped at the limit with whole arguments: nothing to say.
    server.reply(openAiAnswer({
      toolCalls: [{ id: "c3", name: "read_log", arguments: '{"path": "build.log"}' }],
      atOutputLimit: true,
    }));
    assert.deepEqual((await provider().complete(request())).toolCalls, [
      { id: "c3", name: "read_log", arguments: { path: "build.log" } },
    ]);
  });
});

Deno.test("OpenAiProvider reports an error event sent in the middle of the stream", async () => {
  await withServer(async (server, provider) => {
    server.reply({
      events: [
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "Let" } }] })}\n\n`,
        `data: ${
          JSON.stringify({ error: { message: "The server is overloaded", type: "server_error" } })
        }\n\n`,
      ],
    });
    const error = await failure(provider().complete(request()));
    assert.equal(error.message, `${server.url}/v1 broke off the answer: The server is overloaded`);
  });
});

Deno.test("OpenAiProvider stops when cancelled mid-answer, after passing on what arrived", async () => {
  await withServer(async (server, provider) => {
    server.reply(
      openAiAnswer({ text: "I will now explain at great length", truncated: true }, { hold: true }),
    );
    const cancel = new AbortController();
    const pieces: string[] = [];
    const pending = provider().complete(request({
      signal: cancel.signal,
      onText: (delta) => {
        pieces.push(delta);
        if (pieces.join("") === "I will now explain at great length") cancel.abort();
      },
    }));
    const error = await failure(pending);
    assert.equal(error.details["kind"], "cancelled");
    assert.equal(pieces.join(""), "I will now explain at great length");
  });
});
