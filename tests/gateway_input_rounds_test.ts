/**
 * A call that asks its client for input while it runs, across the protocol
 * eras, through `spillway serve --http`: a 2026-07-28 client (the v2 SDK
 * client pinned to it, fulfilling `input_required` with its elicitation,
 * sampling and roots handlers) in front of an upstream that asks the 2025
 * way (server-to-client requests) and one that asks the 2026 way
 * (`input_required`); several requests in one round and several rounds; a
 * declined elicitation; and what crossed recorded with the call.
 */

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";
import { spawnHttpServe, textOf } from "./gateway_fixtures.ts";
import { UPSTREAM_V2_ARGS } from "./_conformance.ts";
import { join } from "./_paths.ts";

/** A config putting the v2 fixture, speaking `protocol`, behind spillway over stdio. */
export function fixtureConfig(protocol: "2025-11-25" | "2026-07-28"): string {
  return `[providers.mcp.conf]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify([...UPSTREAM_V2_ARGS, "--protocol", protocol])}
protocol = "${protocol}"
`;
}

/** The answers a person would give: a name, a colour, a completion, one root; or a decline. */
export interface Answers {
  readonly decline?: boolean;
}

/** A v2 client pinned to 2026-07-28 that answers elicitation, sampling and roots. */
export async function modernClient(url: URL, answers: Answers = {}): Promise<Client> {
  const client = new Client({ name: "rounds-test", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    capabilities: { elicitation: {}, sampling: {}, roots: {} },
    inputRequired: { autoFulfill: true },
  });
  client.setRequestHandler("elicitation/create", (request) => {
    if (answers.decline) return { action: "decline" };
    const schema = request.params as { requestedSchema?: { properties?: object } };
    const field = Object.keys(schema.requestedSchema?.properties ?? { name: 0 })[0] ?? "name";
    return { action: "accept", content: { [field]: field === "color" ? "teal" : "Ada" } };
  });
  client.setRequestHandler("sampling/createMessage", () => ({
    role: "assistant",
    content: { type: "text", text: "Good day," },
    model: "test-model",
    stopReason: "endTurn",
  }));
  client.setRequestHandler("roots/list", () => ({
    roots: [{ uri: "file:///work", name: "work" }],
  }));
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/** Every event of every conversation in `workspace`. */
export function recordedEvents(workspace: string): Record<string, unknown>[] {
  const dir = join(workspace, "conversations");
  const events: Record<string, unknown>[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const text = Deno.readTextFileSync(join(dir, entry.name, "events.jsonl"));
    for (const line of text.split("\n")) if (line !== "") events.push(JSON.parse(line));
  }
  return events;
}

for (const protocol of ["2025-11-25", "2026-07-28"] as const) {
  Deno.test(`a 2026-07-28 client, a ${protocol} upstream: three kinds asked in one round, answered, recorded`, async () => {
    await using serve = await spawnHttpServe(["--no-auth"], { config: fixtureConfig(protocol) });
    const client = await modernClient(serve.url as URL);
    try {
      const result = await client.callTool({
        name: "test_input_required_result_multiple_inputs",
        arguments: {},
      });
      assert.equal(textOf(result), "Good day, Ada (1 root(s) visible)");
      const events = recordedEvents(serve.workspace);
      const inputs = events.filter((e) => e.type === "tool_call_input");
      assert.deepEqual(inputs.map((e) => e.kind).sort(), ["elicitation", "roots", "sampling"]);
      for (const input of inputs) {
        assert.equal(input.via, "input_required");
        assert.ok((input.request_bytes as number) > 0);
      }
      const responses = events.filter((e) => e.type === "tool_call_response");
      assert.equal(responses.length, 1, "one call recorded, not one per round");
      assert.equal(responses[0]?.content, textOf(result));
    } finally {
      await client.close();
    }
  });

  Deno.test(`a 2026-07-28 client, a ${protocol} upstream: two rounds, then a declined elicitation`, async () => {
    await using serve = await spawnHttpServe(["--no-auth"], { config: fixtureConfig(protocol) });
    const client = await modernClient(serve.url as URL);
    try {
      const result = await client.callTool({
        name: "test_input_required_result_multi_round",
        arguments: {},
      });
      assert.equal(textOf(result), "Multi-round complete: Ada likes teal");
    } finally {
      await client.close();
    }
    const declining = await modernClient(serve.url as URL, { decline: true });
    try {
      const result = await declining.callTool({
        name: "test_input_required_result_elicitation",
        arguments: {},
      });
      console.log(JSON.stringify(result).slice(0, 400));
    } finally {
      await declining.close();
    }
  });
}
