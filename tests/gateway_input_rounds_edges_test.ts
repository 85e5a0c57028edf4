/**
 * The continuations of `input_required` rounds, tried by a hostile or
 * careless 2026-07-28 client over raw HTTP: a tampered `requestState`,
 * another client's, an expired one (`serve.input_timeout`), one of a round
 * already answered, and a client that did not declare the capability its
 * call needs (-32021). Each gets a JSON-RPC error saying what is wrong, and
 * nothing happens to the call: the right continuation still works, and an
 * abandoned call is recorded as cancelled, never as delivered.
 */

import assert from "node:assert/strict";
import { spawnHttpServe } from "./gateway_fixtures.ts";
import { fixtureConfig, recordedEvents } from "./_input_rounds.ts";

const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef" };
const CLIENTS = `
[serve.tokens.alice]
env = "ALICE_TOKEN"

[serve.tokens.bob]
env = "BOB_TOKEN"
`;

interface Reply {
  readonly status: number;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: unknown };
}

let nextId = 1;

/** A raw 2026-07-28 `tools/call` of `tool`, as `token`'s client, with `extra` params. */
async function call(
  url: URL,
  tool: string,
  options: {
    token?: string;
    capabilities?: Record<string, unknown>;
    extra?: Record<string, unknown>;
  } = {},
): Promise<Reply> {
  const body = {
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: {
      name: tool,
      arguments: {},
      ...options.extra,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": options.capabilities ??
          { elicitation: {} },
      },
    },
  };
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": tool,
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  // A JSON body, or an SSE stream whose last message is the answer.
  const json = text.startsWith("{") ? text : text.split("\n").filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5)).at(-1) ?? "{}";
  const message = JSON.parse(json);
  return { status: response.status, result: message.result, error: message.error };
}

const accept = (content: Record<string, unknown>) => ({ action: "accept", content });

/** The `requestState` and the one key of an input_required answer. */
function round(reply: Reply): { state: string; key: string } {
  assert.equal(reply.result?.resultType, "input_required", JSON.stringify(reply));
  const requests = reply.result?.inputRequests as Record<string, unknown>;
  const [key] = Object.keys(requests);
  return { state: reply.result?.requestState as string, key: key ?? "" };
}

Deno.test("a tampered, another client's, or an answered round's requestState: a clear error, and the call goes on", async () => {
  await using serve = await spawnHttpServe([], {
    config: fixtureConfig("2025-11-25") + CLIENTS,
    env: { ALICE_TOKEN: TOKENS.alice, BOB_TOKEN: TOKENS.bob },
  });
  const url = serve.url as URL;
  const tool = "test_input_required_result_multi_round";
  const first = round(await call(url, tool, { token: TOKENS.alice }));

  const tampered = await call(url, tool, {
    token: TOKENS.alice,
    extra: {
      requestState: `${first.state}x`,
      inputResponses: { [first.key]: accept({ name: "Eve" }) },
    },
  });
  assert.equal(tampered.error?.code, -32602);
  assert.match(
    tampered.error?.message ?? "",
    /requestState was not issued by this gateway or was altered.*call the tool again/,
  );

  const stolen = await call(url, tool, {
    token: TOKENS.bob,
    extra: { requestState: first.state, inputResponses: { [first.key]: accept({ name: "Bob" }) } },
  });
  assert.equal(stolen.error?.code, -32602);
  assert.match(stolen.error?.message ?? "", /issued to another client/);

  const second = round(
    await call(url, tool, {
      token: TOKENS.alice,
      extra: {
        requestState: first.state,
        inputResponses: { [first.key]: accept({ name: "Ada" }) },
      },
    }),
  );
  const replayed = await call(url, tool, {
    token: TOKENS.alice,
    extra: { requestState: first.state, inputResponses: { [first.key]: accept({ name: "Ada" }) } },
  });
  assert.match(replayed.error?.message ?? "", /answers round 1, and the call is at round 2/);

  // A retry that leaves its key out is asked again, under the same key.
  const again = round(
    await call(url, tool, {
      token: TOKENS.alice,
      extra: { requestState: second.state, inputResponses: {} },
    }),
  );
  assert.equal(again.key, second.key);
  const done = await call(url, tool, {
    token: TOKENS.alice,
    extra: {
      requestState: again.state,
      inputResponses: { [second.key]: accept({ color: "teal" }) },
    },
  });
  const content = done.result?.content as { text: string }[];
  assert.equal(content[0]?.text, "Multi-round complete: Ada likes teal");
  const events = recordedEvents(serve.workspace);
  const responses = events.filter((e) => e.type === "tool_call_response");
  assert.deepEqual(responses.map((e) => e.content), ["Multi-round complete: Ada likes teal"]);
  assert.equal(events.filter((e) => e.type === "tool_call_input").length, 2);
});

Deno.test("an expired requestState: a clear error; the call is recorded as cancelled, not delivered", async () => {
  await using serve = await spawnHttpServe(["--no-auth"], {
    config: fixtureConfig("2025-11-25") + '\n[serve]\ninput_timeout = "1s"\n',
  });
  const url = serve.url as URL;
  const tool = "test_input_required_result_elicitation";
  const first = round(await call(url, tool));
  await new Promise((resolve) => setTimeout(resolve, 1_600));
  const late = await call(url, tool, {
    extra: { requestState: first.state, inputResponses: { [first.key]: accept({ name: "Ada" }) } },
  });
  assert.equal(late.error?.code, -32602);
  assert.match(
    late.error?.message ?? "",
    /requestState expired \(it is good for 1s, serve.input_timeout\)/,
  );
  let responses: Record<string, unknown>[] = [];
  for (let i = 0; i < 50 && responses.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    responses = recordedEvents(serve.workspace).filter((e) => e.type === "tool_call_response");
  }
  assert.equal(responses.length, 1);
  assert.match(
    String(responses[0]?.content),
    /did not call again with the input its call asked for within 1s/,
  );
  const [input] = recordedEvents(serve.workspace).filter((e) => e.type === "tool_call_input");
  assert.equal(input?.outcome, "failed");
});

Deno.test("a call needing a capability its client did not declare: -32021 naming it", async () => {
  await using serve = await spawnHttpServe(["--no-auth"], { config: fixtureConfig("2025-11-25") });
  const reply = await call(serve.url as URL, "test_input_required_result_sampling", {
    capabilities: { elicitation: {} },
  });
  assert.equal(reply.error?.code, -32021, JSON.stringify(reply));
  assert.deepEqual(
    (reply.error?.data as { requiredCapabilities?: unknown })?.requiredCapabilities,
    { sampling: {} },
  );
  assert.equal(reply.status, 400);
});

Deno.test("a call waiting for its client's input does not hold back the calls it arrived with", async () => {
  await using serve = await spawnHttpServe(["--no-auth"], { config: fixtureConfig("2025-11-25") });
  const url = serve.url as URL;
  const waiting = round(await call(url, "test_input_required_result_elicitation"));
  const sibling = await call(url, "test_simple_text");
  const text = (sibling.result?.content as { text: string }[])[0]?.text;
  assert.match(text ?? "", /simple text/i);
  const done = await call(url, "test_input_required_result_elicitation", {
    extra: {
      requestState: waiting.state,
      inputResponses: { [waiting.key]: accept({ name: "Ada" }) },
    },
  });
  assert.equal((done.result?.content as { text: string }[])[0]?.text, "Hello, Ada!");
  const responses = recordedEvents(serve.workspace).filter((e) => e.type === "tool_call_response");
  assert.equal(responses.length, 2);
});

for (const protocol of ["2025-11-25", "2026-07-28"] as const) {
  Deno.test(`a call left waiting for input in front of a ${protocol} upstream: SIGTERM ends it at once, recorded as cancelled`, async () => {
    await using serve = await spawnHttpServe(["--no-auth"], { config: fixtureConfig(protocol) });
    round(await call(serve.url as URL, "test_input_required_result_elicitation"));
    const started = performance.now();
    serve.child.kill("SIGTERM");
    const status = await serve.child.status;
    assert.ok(performance.now() - started < 10_000, "it did not wait for the client");
    assert.equal(status.code, 0);
    const [response] = recordedEvents(serve.workspace).filter((e) =>
      e.type === "tool_call_response"
    );
    assert.match(String(response?.content), /cancelled: spillway serve is shutting down/);
  });
}

Deno.test("a continuation brought to another gateway: the error says to call the tool again", async () => {
  await using first = await spawnHttpServe(["--no-auth"], { config: fixtureConfig("2025-11-25") });
  await using second = await spawnHttpServe(["--no-auth"], { config: fixtureConfig("2025-11-25") });
  const tool = "test_input_required_result_elicitation";
  const started = round(await call(first.url as URL, tool));
  const elsewhere = await call(second.url as URL, tool, {
    extra: {
      requestState: started.state,
      inputResponses: { [started.key]: accept({ name: "Ada" }) },
    },
  });
  assert.equal(elsewhere.error?.code, -32602);
  assert.match(
    elsewhere.error?.message ?? "",
    /not issued by this gateway or was altered \(another gateway of a fleet holds the calls it started\); call the tool again without requestState/,
  );
  // Called again there, the call runs there from the start.
  assert.equal(round(await call(second.url as URL, tool)).key, "elicitation-1");
});
