/**
 * The v2 conformance upstream (`tests/fixtures/gateway/conformance_v2/`)
 * on its own: over HTTP it passes the conformance suite 0.2.0-alpha.12's
 * requirements for 2026-07-28 and for 2025-11-25 directly, each era alone in
 * its single-era mode; over stdio (which the suite cannot reach) a v2
 * client finds the era each mode serves and completes an `input_required`
 * round trip. These are the fixture's promises the gateway tests build on.
 */

import assert from "node:assert/strict";
import { Client, SdkError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  type ConformanceRun,
  runConformance,
  startUpstreamV2,
  UPSTREAM_V2_ARGS,
} from "./_conformance.ts";

/** Asserts a run passed its requirements: exit 0, no scored failure, `expected` among the scenarios. */
function assertPassed(run: ConformanceRun, expected: readonly string[]): void {
  assert.equal(run.report, "", `scored scenarios failed:\n${run.report}`);
  assert.equal(run.code, 0, run.output.slice(-3000));
  for (const name of expected) {
    assert.equal(run.scenarios.get(name)?.passed, true, `${name} did not run or failed`);
    assert.ok(run.scenarios.get(name)!.checks.length > 0, `${name} ran no check`);
  }
}

/** Scenarios each requirement set must contain (so a shrunken run cannot pass unnoticed). */
const MODERN = [
  "server-stateless",
  "tools-call-simple-text",
  "tools-call-with-progress",
  "resources-templates-read",
  "prompts-get-with-args",
  "caching",
  "input-required-result-basic-elicitation",
  "input-required-result-multi-round",
  "input-required-result-tampered-state",
];
const LEGACY = [
  "server-initialize",
  "tools-call-simple-text",
  "tools-call-sampling",
  "tools-call-elicitation",
  "elicitation-sep1330-enums",
  "resources-subscribe",
  "prompts-get-with-image",
];

Deno.test("the v2 fixture serving both eras passes the 2026-07-28 and 2025-11-25 requirements directly", async () => {
  await using fixture = await startUpstreamV2([]);
  const modern = await runConformance(fixture.url, { requirements: "2026-07-28" });
  assertPassed(modern, MODERN);
  // The tasks extension (SEP-2663) is run but not scored, and the SDK does not implement it.
  assert.equal(modern.scenarios.get("tasks-lifecycle")?.scored, false);
  const legacy = await runConformance(fixture.url, { requirements: "2025-11-25" });
  assertPassed(legacy, LEGACY);
});

Deno.test("the v2 fixture with --protocol 2026-07-28 passes 2026-07-28 and refuses 2025 clients", async () => {
  await using fixture = await startUpstreamV2(["--protocol", "2026-07-28"]);
  assertPassed(await runConformance(fixture.url, { requirements: "2026-07-28" }), MODERN);
  const legacy = new Client({ name: "legacy", version: "1" });
  await assert.rejects(legacy.connect(new StreamableHTTPClientTransport(fixture.url)));
  await legacy.close();
});

Deno.test("the v2 fixture with --protocol 2025-11-25 passes 2025-11-25 and is a legacy server to an auto client", async () => {
  await using fixture = await startUpstreamV2(["--protocol", "2025-11-25"]);
  assertPassed(await runConformance(fixture.url, { requirements: "2025-11-25" }), LEGACY);
  const auto = new Client({ name: "auto", version: "1" }, { versionNegotiation: { mode: "auto" } });
  await auto.connect(new StreamableHTTPClientTransport(fixture.url));
  try {
    assert.equal(auto.getProtocolEra(), "legacy");
  } finally {
    await auto.close();
  }
  const pinned = new Client({ name: "pinned", version: "1" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await assert.rejects(pinned.connect(new StreamableHTTPClientTransport(fixture.url)), SdkError);
  await pinned.close();
});

Deno.test("createMcpHandler's stateless 2025 fallback (--legacy stateless) loses 2025 server-to-client requests", async () => {
  // Each 2025 POST meets a fresh server instance, which cannot send the
  // client a request of its own: the SDK fails the tool's `input_required`
  // at once ("per-request legacy serving cannot receive server-to-client
  // requests"). Why the fixture serves 2025 with sessions by default.
  await using fixture = await startUpstreamV2(["--legacy", "stateless"]);
  const run = await runConformance(fixture.url, {
    scenario: "tools-call-elicitation",
    specVersion: "2025-11-25",
    scenarioTimeoutMs: 3_000,
  });
  const elicitation = run.scenarios.get("tools-call-elicitation");
  assert.equal(elicitation?.passed, false);
  assert.match(
    JSON.stringify(elicitation.checks),
    /per-request legacy serving cannot receive server-to-client requests/,
  );
  const simple = await runConformance(fixture.url, {
    scenario: "tools-call-simple-text",
    specVersion: "2025-11-25",
  });
  assert.equal(simple.scenarios.get("tools-call-simple-text")?.passed, true, simple.report);
});

/** A v2 client over stdio to the fixture started with `args`, answering elicitations with `name`. */
async function stdioClient(
  args: readonly string[],
  mode: "auto" | "legacy" | { pin: string },
): Promise<Client> {
  const client = new Client({ name: "stdio-test", version: "1" }, {
    capabilities: { elicitation: {} },
    versionNegotiation: { mode },
  });
  client.setRequestHandler("elicitation/create", () => ({
    action: "accept",
    content: { name: "Ada" },
  }));
  try {
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: [...UPSTREAM_V2_ARGS, ...args],
        stderr: "ignore",
      }),
    );
  } catch (error) {
    await client.close();
    throw error;
  }
  return client;
}

/** Calls `test_input_required_result_elicitation`; returns its text. */
async function askedName(client: Client): Promise<string> {
  const result = await client.callTool({ name: "test_input_required_result_elicitation" });
  const [block] = result.content as { type: string; text?: string }[];
  return block?.text ?? "";
}

Deno.test("over stdio the v2 fixture serves each era it is started for, input_required included", async () => {
  const cases: {
    args: string[];
    mode: "auto" | "legacy" | { pin: string };
    era: "modern" | "legacy";
  }[] = [
    { args: [], mode: "auto", era: "modern" },
    { args: [], mode: "legacy", era: "legacy" },
    { args: ["--protocol", "2026-07-28"], mode: { pin: "2026-07-28" }, era: "modern" },
    { args: ["--protocol", "2025-11-25"], mode: "auto", era: "legacy" },
  ];
  for (const { args, mode, era } of cases) {
    const client = await stdioClient(args, mode);
    try {
      const label = `${args.join(" ") || "both"} / ${JSON.stringify(mode)}`;
      assert.equal(client.getProtocolEra(), era, label);
      // Modern: an input_required result the client fulfils; legacy: a real elicitation/create.
      assert.equal(await askedName(client), "Hello, Ada!", label);
    } finally {
      await client.close();
    }
  }
});

Deno.test("over stdio the v2 fixture with --protocol 2026-07-28 refuses a 2025 client", async () => {
  await assert.rejects(stdioClient(["--protocol", "2026-07-28"], "legacy"));
});
