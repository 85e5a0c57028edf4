/**
 * What bridging a client's input across the protocol eras costs: one call
 * of a tool that asks its client one elicitation question, through
 * `spillway serve --http`, with the client and the upstream in each pair of
 * eras. The baseline is the call within one era, 2025-11-25 on both sides
 * (the upstream's request relayed to the client as a request); the bridged
 * ones are a 2026-07-28 client in front of a 2025 upstream (an
 * `input_required` round and a retry, the upstream's request waiting in
 * the gateway), a 2025 client in front of a 2026-07-28 upstream (the
 * upstream's `input_required` asked as a request, the upstream called
 * again), and 2026-07-28 on both sides (both at once). Each iteration is
 * the whole call: request, question, answer, result, recorded and fsynced.
 *
 * Run: `deno task bench tests/bench/input_rounds_bench.ts`
 *
 * @module
 */

import type { Client } from "../../src/service/sdk.ts";
import { spawnHttpServe, textOf } from "../gateway_fixtures.ts";
import { fixtureConfig, modernClient } from "../_input_rounds.ts";

const TOOL = "test_input_required_result_elicitation";
const upstream25 = await spawnHttpServe(["--no-auth"], { config: fixtureConfig("2025-11-25") });
const upstream26 = await spawnHttpServe(["--no-auth"], { config: fixtureConfig("2026-07-28") });
const clients: Client[] = [];
const client = async (url: URL, era: "2025-11-25" | "2026-07-28") => {
  const made = await modernClient(url, { era });
  clients.push(made);
  return made;
};
const pairs = {
  "2025 client, 2025 upstream (one era)": await client(upstream25.url as URL, "2025-11-25"),
  "2026 client, 2025 upstream (bridged)": await client(upstream25.url as URL, "2026-07-28"),
  "2025 client, 2026 upstream (bridged)": await client(upstream26.url as URL, "2025-11-25"),
  "2026 client, 2026 upstream (held)": await client(upstream26.url as URL, "2026-07-28"),
};
// The servers and their upstreams stop with the bench (SIGTERM: they record and exit).
globalThis.addEventListener("unload", () => {
  for (const serve of [upstream25, upstream26]) serve.child.kill("SIGTERM");
});

for (const [name, caller] of Object.entries(pairs)) {
  Deno.bench({
    name,
    group: "one elicitation",
    baseline: name.startsWith("2025 client, 2025"),
    n: 200,
    warmup: 20,
    fn: async () => {
      const result = await caller.callTool({ name: TOOL, arguments: {} });
      if (textOf(result) !== "Hello, Ada!") throw new Error(`unexpected: ${textOf(result)}`);
    },
  });
}

Deno.bench({
  name: "2026 client, 2025 upstream, no question (a plain call)",
  group: "one elicitation",
  n: 200,
  warmup: 20,
  fn: async () => {
    await pairs["2026 client, 2025 upstream (bridged)"].callTool({
      name: "test_simple_text",
      arguments: {},
    });
  },
});
