/**
 * What the model reads is what spillway recorded, with the agent CLIs people
 * run: Claude Code, Codex and Gemini CLI from npm (pinned), each offline
 * against a loopback fake of its model API, with `spillway serve --stdio`
 * in front of an upstream whose tool returns 5,000,000 bytes. In each CLI's
 * default settings, spillway cuts the result to that client's own limit,
 * and the model receives exactly the recorded text (in the CLI's own
 * framing: Codex's wall-time block, Gemini CLI's `<untrusted_context>`),
 * ending with spillway's marker. Claude Code with a `size_threshold` above
 * its 500,000-character limit still shows the result inline. Claude Code
 * negotiates MCP 2026-07-28 with spillway (over stdio and over HTTP), the
 * others speak a 2025 revision: each conversation records which.
 *
 * The CLIs come from npm's cache (`.ci/run` fills it); on a machine without
 * them each test is ignored, its name saying why, unless
 * `SPILLWAY_REQUIRE_AGENT_CLIS=1` (CI), under which a missing CLI fails its
 * test.
 *
 * @module
 */

import assert from "node:assert/strict";
import { KNOWN_CLIENTS } from "../src/gateway/session_ceiling.ts";
import { ByteSize } from "../src/size/byte_size.ts";
import { spawnHttpServe } from "./gateway_fixtures.ts";
import {
  agentCliMissing,
  type AgentCliName,
  ANNOUNCED_NAMES,
  LOG_UPSTREAM,
  passedWhole,
  recordedIn,
  runAgentCli,
  spillwayInFront,
} from "./_agent_clis.ts";

const REQUIRED = Deno.env.get("SPILLWAY_REQUIRE_AGENT_CLIS") === "1";
const SOURCE_BYTES = 5_000_000;

/** One run of `cli` through spillway configured with `extra`; what was recorded and received. */
async function throughSpillway(cli: AgentCliName, extra = "", upstream = LOG_UPSTREAM) {
  const dir = await Deno.makeTempDir({ prefix: `spillway-${cli}-test-` });
  try {
    const spillway = await spillwayInFront(dir, extra, upstream);
    const run = await runAgentCli(cli, {
      server: spillway.server,
      tool: "big_log",
      arguments: { bytes: SOURCE_BYTES },
    });
    const recorded = await spillway.recorded();
    assert.equal(recorded.length, 1, `one recorded result\n${run.output}`);
    assert.ok(run.received !== undefined, `the model got no tool result\n${run.output}`);
    const [protocol] = await spillway.protocols();
    return { recorded: recorded[0] as string, received: run.received, protocol };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A test of `cli`, ignored (saying why) when it is not installed and not required. */
async function cliTest(cli: AgentCliName, name: string, body: () => Promise<void>) {
  // Required, a missing CLI fails its run (npx cannot fetch it offline): no need to look first.
  const missing = REQUIRED ? undefined : await agentCliMissing(cli);
  Deno.test({
    name: name + (missing === undefined ? "" : ` (ignored: ${missing})`),
    ignore: missing !== undefined,
    fn: body,
  });
}

for (const cli of ["claude-code", "codex", "gemini-cli"] as const) {
  const own = KNOWN_CLIENTS.find((client) => client.name === ANNOUNCED_NAMES[cli]);
  await cliTest(
    cli,
    `${cli}, default settings: the model reads exactly what spillway recorded`,
    async () => {
      assert.ok(own !== undefined, `${ANNOUNCED_NAMES[cli]} is a known client`);
      const { recorded, received, protocol } = await throughSpillway(cli);
      if (cli === "claude-code") assert.equal(protocol, "2026-07-28");
      else assert.match(protocol ?? "", /^2025-/);
      // spillway cut at the client's own ceiling (the default threshold when that is lower).
      const limit = Math.min(own.bytes, 262_144);
      assert.equal(new TextEncoder().encode(recorded).length, limit);
      assert.ok(
        recorded.endsWith(`\n... [truncated, 4.7 MB → ${ByteSize.fromBytes(limit).human()}]`),
        recorded.slice(-80),
      );
      assert.ok(
        passedWhole(cli, received, recorded),
        `the model got ${received.map((text) => text.length)} characters:\n` +
          received.map((text) => `${text.slice(0, 200)}\n…\n${text.slice(-200)}`).join("\n---\n"),
      );
    },
  );
}

await cliTest(
  "claude-code",
  'claude-code, size_threshold = "1MB": still inline, cut at its 500,000-character limit',
  async () => {
    const { recorded, received } = await throughSpillway(
      "claude-code",
      `[conversation.tools.'*']\nsize_threshold = "1MB"\n`,
    );
    assert.equal(new TextEncoder().encode(recorded).length, 500_000);
    assert.ok(recorded.endsWith("\n... [truncated, 4.7 MB → 488.2 KB]"), recorded.slice(-80));
    assert.ok(passedWhole("claude-code", received, recorded), received[0]?.slice(0, 300));
  },
);

await cliTest(
  "claude-code",
  "claude-code over HTTP: negotiates 2026-07-28 with serve --http, the model reads exactly what was recorded",
  async () => {
    const config = `[providers.mcp.logs]\ntype = "stdio"\n` +
      `command = ${JSON.stringify(Deno.execPath())}\narguments = ${JSON.stringify(LOG_UPSTREAM)}\n`;
    await using serve = await spawnHttpServe(["--no-auth"], { config });
    const run = await runAgentCli("claude-code", {
      server: { type: "http", url: (serve.url as URL).href },
      tool: "big_log",
      arguments: { bytes: SOURCE_BYTES },
    });
    const recorded = await recordedIn(serve.workspace, "tool_call_response", "content");
    assert.equal(recorded.length, 1, `one recorded result\n${run.output}`);
    assert.deepEqual(await recordedIn(serve.workspace, "session_start", "protocol"), [
      "2026-07-28",
    ]);
    const text = recorded[0] as string;
    assert.ok(text.endsWith("\n... [truncated, 4.7 MB → 256.0 KB]"), text.slice(-80));
    assert.ok(run.received !== undefined, `the model got no tool result\n${run.output}`);
    assert.ok(passedWhole("claude-code", run.received, text), run.received[0]?.slice(0, 300));
  },
);

await cliTest(
  "gemini-cli",
  "gemini-cli (MCP 2025 only) through spillway to an upstream that serves only 2026-07-28: the model reads exactly what was recorded",
  async () => {
    const own = KNOWN_CLIENTS.find((client) => client.name === ANNOUNCED_NAMES["gemini-cli"]);
    assert.ok(own !== undefined);
    const { recorded, received, protocol } = await throughSpillway(
      "gemini-cli",
      "",
      [...LOG_UPSTREAM, "--modern-only"],
    );
    assert.match(protocol ?? "", /^2025-/);
    const limit = Math.min(own.bytes, 262_144);
    assert.equal(new TextEncoder().encode(recorded).length, limit);
    assert.ok(
      recorded.endsWith(`\n... [truncated, 4.7 MB → ${ByteSize.fromBytes(limit).human()}]`),
    );
    assert.ok(passedWhole("gemini-cli", received, recorded), received[0]?.slice(0, 300));
  },
);
