/**
 * The MCP SDK's v1 client (1.32, the 2025 client most agents embed: Gemini
 * CLI, many IDEs) in front of an upstream that speaks only 2026-07-28,
 * through `spillway serve --http`: the upstream's `input_required` answers
 * reach the v1 client as elicitation, sampling and roots requests, round
 * after round, and the call ends with the upstream's result, recorded once
 * with what it asked; a declined elicitation ends the call with an error
 * saying so.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { spawnHttpServe, textOf } from "./gateway_fixtures.ts";
import { fixtureConfig, recordedEvents } from "./_input_rounds.ts";

/** A v1 client answering like a person would, or declining every elicitation. */
async function v1Client(url: URL, decline = false): Promise<Client> {
  const client = new Client({ name: "v1-client", version: "1.32.2" }, {
    capabilities: { elicitation: {}, sampling: {}, roots: {} },
  });
  client.setRequestHandler(ElicitRequestSchema, (request: { params: unknown }) => {
    if (decline) return { action: "decline" };
    const schema = request.params as { requestedSchema?: { properties?: object } };
    const field = Object.keys(schema.requestedSchema?.properties ?? { name: 0 })[0] ?? "name";
    return { action: "accept", content: { [field]: field === "color" ? "teal" : "Ada" } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, () => ({
    role: "assistant",
    content: { type: "text", text: "Good day," },
    model: "test-model",
  }));
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [{ uri: "file:///work", name: "work" }],
  }));
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

Deno.test("the v1 client in front of a 2026-07-28 upstream: rounds of input as requests, the result recorded once", async () => {
  await using serve = await spawnHttpServe(["--no-auth"], { config: fixtureConfig("2026-07-28") });
  const client = await v1Client(serve.url as URL);
  try {
    const rounds = await client.callTool({ name: "test_input_required_result_multi_round" });
    assert.equal(textOf(rounds), "Multi-round complete: Ada likes teal");
    const several = await client.callTool({ name: "test_input_required_result_multiple_inputs" });
    assert.equal(textOf(several), "Good day, Ada (1 root(s) visible)");
  } finally {
    await client.close();
  }
  const declining = await v1Client(serve.url as URL, true);
  try {
    const declined = await declining.callTool({ name: "test_input_required_result_elicitation" });
    assert.equal(declined.isError, true);
    assert.match(
      textOf(declined),
      /the client declined the elicitation request \(action: decline\)/,
    );
  } finally {
    await declining.close();
  }
  const events = recordedEvents(serve.workspace);
  assert.equal(events.filter((e) => e.type === "tool_call_response").length, 3);
  const inputs = events.filter((e) => e.type === "tool_call_input");
  assert.deepEqual(
    inputs.map((e) => `${e.kind}:${e.outcome}`).sort(),
    [
      "elicitation:accept",
      "elicitation:accept",
      "elicitation:accept",
      "elicitation:decline",
      "roots:answered",
      "sampling:answered",
    ],
  );
  assert.ok(inputs.every((e) => e.via === "request"));
});
