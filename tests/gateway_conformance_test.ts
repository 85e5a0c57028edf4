/**
 * The MCP conformance suite (0.2.0-alpha.12) against `spillway serve --http`
 * in front of the v2 conformance upstream (over stdio, serving both
 * protocol eras), and against that upstream directly (over HTTP), for the
 * requirements of 2026-07-28 and of 2025-11-25. Every scenario the upstream
 * passes directly passes through spillway too, but for the few listed in
 * `NOT_THROUGH_SPILLWAY`, each with why; those are checked to still fail, so
 * the list cannot outlive its reason. And in front of an upstream that
 * speaks only 2025-11-25, a 2026-07-28 client's tool scenarios all pass.
 */

import assert from "node:assert/strict";
import {
  type ConformanceRun,
  type Requirements,
  runConformance,
  startUpstreamV2,
  UPSTREAM_V2_ARGS,
} from "./_conformance.ts";
import { spawnHttpServe } from "./gateway_fixtures.ts";

/** A config putting the v2 upstream (with `args`) behind spillway over stdio. */
function configWith(args: readonly string[] = []): string {
  return `[providers.mcp.conf]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify([...UPSTREAM_V2_ARGS, ...args])}
`;
}

/** Bridging a client's input across the eras is not built yet (docs/protocol.md, "Not done yet"). */
const INPUT_ACROSS_ERAS = "a 2026-07-28 client's input requests are not bridged yet";

/** The same the other way: a 2026-07-28 upstream's input_required, to a 2025 client. */
/**
 * The upstream's tools for these 2025 scenarios send their sampling and
 * elicitation as requests of their own, which its 2026-07-28 connection
 * (protocol = "auto" picks it) cannot carry; a tool that asks with
 * `input_required` is bridged (tests/upstream_protocol_test.ts).
 */
const UPSTREAM_INPUT_ACROSS_ERAS =
  "the upstream's tool sends requests of its own, which a 2026-07-28 connection cannot carry";

/**
 * Scenarios that pass directly and not through spillway, each with why.
 * Checked below to still fail through spillway.
 */
const NOT_THROUGH_SPILLWAY: Readonly<Record<Requirements, Readonly<Record<string, string>>>> = {
  "2026-07-28": {
    "input-required-result-basic-elicitation": INPUT_ACROSS_ERAS,
    "input-required-result-basic-sampling": INPUT_ACROSS_ERAS,
    "input-required-result-basic-list-roots": INPUT_ACROSS_ERAS,
    "input-required-result-request-state": INPUT_ACROSS_ERAS,
    "input-required-result-multiple-input-requests": INPUT_ACROSS_ERAS,
    "input-required-result-multi-round": INPUT_ACROSS_ERAS,
    "input-required-result-non-tool-request": INPUT_ACROSS_ERAS,
    "input-required-result-result-type": INPUT_ACROSS_ERAS,
    "input-required-result-tampered-state": INPUT_ACROSS_ERAS,
    "input-required-result-capability-check": INPUT_ACROSS_ERAS,
    // Its capability check needs the upstream's sampling request turned into -32021.
    "server-stateless": INPUT_ACROSS_ERAS,
  },
  // spillway speaks 2026-07-28 to the upstream (protocol = "auto"): its tools
  // ask for input with input_required, which is not bridged to a 2025 client's
  // sampling and elicitation yet.
  "2025-11-25": {
    "tools-call-sampling": UPSTREAM_INPUT_ACROSS_ERAS,
    "tools-call-elicitation": UPSTREAM_INPUT_ACROSS_ERAS,
    "elicitation-sep1034-defaults": UPSTREAM_INPUT_ACROSS_ERAS,
    "elicitation-sep1330-enums": UPSTREAM_INPUT_ACROSS_ERAS,
  },
};

/** Every scored scenario passing in `direct` passes in `through`, but the known ones. */
function assertNoneLost(direct: ConformanceRun, through: ConformanceRun, known: object): void {
  const lost: string[] = [];
  for (const [name, scenario] of direct.scenarios) {
    if (!scenario.scored || !scenario.passed || name in known) continue;
    const there = through.scenarios.get(name);
    if (there?.passed !== true) lost.push(`${name}: ${there?.failures.join("; ") ?? "not run"}`);
  }
  assert.deepEqual(lost, [], `lost through spillway:\n${lost.join("\n")}`);
  for (const name of Object.keys(known)) {
    assert.equal(direct.scenarios.get(name)?.passed, true, `${name} passes directly`);
    assert.equal(
      through.scenarios.get(name)?.passed,
      false,
      `${name} now passes through spillway: take it off NOT_THROUGH_SPILLWAY`,
    );
  }
}

for (const requirements of ["2026-07-28", "2025-11-25"] as const) {
  Deno.test(`conformance ${requirements}: spillway serve --http loses no scenario its upstream passes`, async () => {
    await using upstream = await startUpstreamV2();
    await using serve = await spawnHttpServe(["--no-auth"], { config: configWith() });
    const [direct, through] = await Promise.all([
      runConformance(upstream.url, { requirements }),
      runConformance(serve.url as URL, { requirements }),
    ]);
    assert.equal(direct.report, "", `the upstream itself fails:\n${direct.report}`);
    assertNoneLost(direct, through, NOT_THROUGH_SPILLWAY[requirements]);
  });
}

Deno.test("conformance 2026-07-28: in front of a 2025-only upstream, a modern client's tool scenarios pass", async () => {
  await using serve = await spawnHttpServe(["--no-auth"], {
    config: configWith(["--protocol", "2025-11-25"]),
  });
  const through = await runConformance(serve.url as URL, { requirements: "2026-07-28" });
  const tools = [...through.scenarios.values()].filter((s) => /^tools-/.test(s.name));
  assert.ok(tools.length >= 8, `tool scenarios run: ${tools.map((s) => s.name)}`);
  for (const scenario of tools) {
    assert.ok(scenario.passed, `${scenario.name}: ${scenario.failures.join("; ")}`);
  }
});
