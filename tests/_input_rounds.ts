/**
 * Test helpers for calls that ask their client for input: the v2
 * conformance fixture behind spillway speaking one era, a v2 client pinned
 * to 2026-07-28 that answers elicitation, sampling and roots, and the
 * events a workspace recorded.
 */

import { Client, StreamableHTTPClientTransport, type Transport } from "../src/service/sdk.ts";
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
  /** The client's era: pinned to 2026-07-28 (default) or 2025-11-25 (legacy). */
  readonly era?: "2026-07-28" | "2025-11-25";
}

/** A v2 client, pinned to 2026-07-28 unless `answers.era` says 2025, that answers elicitation, sampling and roots. */
export async function modernClient(url: URL | Transport, answers: Answers = {}): Promise<Client> {
  const client = new Client({ name: "rounds-test", version: "1.0.0" }, {
    versionNegotiation: { mode: answers.era === "2025-11-25" ? "legacy" : { pin: "2026-07-28" } },
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
  await client.connect(url instanceof URL ? new StreamableHTTPClientTransport(url) : url);
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
