/**
 * Client ceilings: a session whose client announces itself (at initialize)
 * as a client spillway knows gets that client's own limit as its ceiling,
 * over HTTP and over stdio; the `_meta` hint of every tool it lists is the
 * limit enforced in that session; the notice names the client; an unknown
 * client gets none; `[serve.client_ceilings]` overrides and adds;
 * `--client-ceiling` still caps every session; and a client whose own
 * ceiling is below the configured limits is told so once on stderr.
 */

import assert from "node:assert/strict";
import { ByteSize } from "../src/size/byte_size.ts";
import { formatNotice } from "../src/review/notice.ts";
import { KNOWN_CLIENTS } from "../src/gateway/session_ceiling.ts";
import { Client, StdioClientTransport } from "../src/service/sdk.ts";
import { CLI, startHttpGateway, textOf, upstreamConfig } from "./gateway_fixtures.ts";
import { join } from "./_paths.ts";

const HINT = "anthropic/maxResultSizeChars";
const BIG_LOG = `[conversation.tools.big_log]\nsource = "mcp.conf.big"\n`;
const utf8 = (text: string) => new TextEncoder().encode(text).length;
const ceilingOf = (name: string) => KNOWN_CLIENTS.find((client) => client.name === name)!.bytes;

/** Each tool's hint as a client sees it. */
async function hints(client: Client): Promise<Map<string, unknown>> {
  const { tools } = await client.listTools();
  return new Map(tools.map((tool) => [tool.name, tool._meta?.[HINT]]));
}

for (const known of KNOWN_CLIENTS) {
  Deno.test(`HTTP: a client announcing itself as ${known.name} gets its ceiling, hints included`, async () => {
    const warnings: string[] = [];
    await using gw = await startHttpGateway({
      config: upstreamConfig(`[conversation.tools.'*']\nsize_threshold = "1MB"\n${BIG_LOG}`),
      gateway: { warn: (message) => warnings.push(message) },
    });
    const client = await gw.client({ clientInfo: { name: known.name, version: "9.9.9" } });
    const listed = await hints(client);
    for (const [tool, hint] of listed) assert.equal(hint, known.bytes, tool);
    const result = await client.callTool({ name: "big_log", arguments: { bytes: 5_000_000 } });
    const text = textOf(result);
    assert.equal(utf8(text), known.bytes);
    assert.ok(text.length <= (listed.get("big_log") as number));
    assert.ok(
      text.endsWith(`\n... [truncated, 4.7 MB → ${ByteSize.fromBytes(known.bytes).human()}]`),
    );
    assert.deepEqual(gw.notices.map((n) => [n.cause, n.client]), [["client ceiling", known.label]]);
    const [event] = (await gw.events()).filter((e) => e.type === "tool_call_response");
    assert.equal(
      event?.type === "tool_call_response" && event.content,
      text,
      "recorded = delivered",
    );
    assert.equal(warnings.length, 1, warnings.join("\n"));
  });
}

Deno.test("the notice of a cut at Codex's ceiling names the client", async () => {
  await using gw = await startHttpGateway({ config: upstreamConfig(BIG_LOG) });
  const client = await gw.client({ clientInfo: { name: "codex-mcp-client", version: "0.169.0" } });
  await client.callTool({ name: "big_log", arguments: { bytes: 5_000_000 } });
  assert.deepEqual(
    gw.notices.map(formatNotice),
    ["big_log: sent 11.6 KB of 4.7 MB to the assistant (client ceiling: codex)"],
  );
});

Deno.test("a client spillway does not know gets no ceiling: the thresholds decide", async () => {
  const warnings: string[] = [];
  await using gw = await startHttpGateway({
    config: upstreamConfig(BIG_LOG),
    gateway: { warn: (message) => warnings.push(message) },
  });
  const client = await gw.client({ clientInfo: { name: "my-agent", version: "1.0.0" } });
  for (const [tool, hint] of await hints(client)) assert.equal(hint, 262_144, tool);
  const result = await client.callTool({ name: "big_log", arguments: { bytes: 300_000 } });
  assert.equal(utf8(textOf(result)), 262_144);
  assert.deepEqual(gw.notices.map((n) => [n.cause, n.client]), [["size_threshold", undefined]]);
  assert.deepEqual(warnings, []);
});

Deno.test("each session gets its own client's ceiling, side by side", async () => {
  await using gw = await startHttpGateway({ config: upstreamConfig(BIG_LOG) });
  const codex = await gw.client({ clientInfo: { name: "codex-mcp-client", version: "1" } });
  const other = await gw.client({ clientInfo: { name: "my-agent", version: "1" } });
  const gemini = await gw.client({ clientInfo: { name: "gemini-cli-mcp-client", version: "1" } });
  assert.equal((await hints(codex)).get("big_log"), ceilingOf("codex-mcp-client"));
  assert.equal((await hints(other)).get("big_log"), 262_144);
  assert.equal((await hints(gemini)).get("big_log"), ceilingOf("gemini-cli-mcp-client"));
  const sizes = await Promise.all(
    [codex, other, gemini].map(async (client) =>
      utf8(textOf(await client.callTool({ name: "big_log", arguments: { bytes: 300_000 } })))
    ),
  );
  assert.deepEqual(sizes, [
    ceilingOf("codex-mcp-client"),
    262_144,
    ceilingOf("gemini-cli-mcp-client"),
  ]);
});

Deno.test("[serve.client_ceilings] overrides a known client and adds one", async () => {
  await using gw = await startHttpGateway({
    config: upstreamConfig(
      `${BIG_LOG}[serve.client_ceilings]\n"codex-mcp-client" = "64KB"\n"my-agent" = "20KB"\n`,
    ),
  });
  const codex = await gw.client({ clientInfo: { name: "codex-mcp-client", version: "1" } });
  const mine = await gw.client({ clientInfo: { name: "my-agent", version: "1" } });
  assert.equal((await hints(codex)).get("big_log"), 65_536);
  assert.equal((await hints(mine)).get("big_log"), 20_480);
  await codex.callTool({ name: "big_log", arguments: { bytes: 100_000 } });
  await mine.callTool({ name: "big_log", arguments: { bytes: 100_000 } });
  assert.deepEqual(gw.notices.map(formatNotice), [
    "big_log: sent 64.0 KB of 97.6 KB to the assistant (client ceiling: codex)",
    "big_log: sent 20.0 KB of 97.6 KB to the assistant (client ceiling: my-agent)",
  ]);
});

Deno.test("--client-ceiling caps every session; a client's lower own ceiling still wins", async () => {
  const warnings: string[] = [];
  await using gw = await startHttpGateway({
    config: upstreamConfig(`[conversation.tools.'*']\nsize_threshold = "2MB"\n${BIG_LOG}`),
    gateway: { clientCeiling: ByteSize.parse("1MB"), warn: (message) => warnings.push(message) },
  });
  const mine = await gw.client({ clientInfo: { name: "my-agent", version: "1" } });
  const claude = await gw.client({ clientInfo: { name: "claude-code", version: "2.1.328" } });
  const again = await gw.client({ clientInfo: { name: "claude-code", version: "2.1.328" } });
  assert.equal((await hints(mine)).get("big_log"), 1_048_576);
  assert.equal((await hints(claude)).get("big_log"), 500_000);
  assert.equal((await hints(again)).get("big_log"), 500_000);
  const result = await claude.callTool({ name: "big_log", arguments: { bytes: 5_000_000 } });
  assert.equal(utf8(textOf(result)), 500_000);
  // Said once, however many sessions the client opens.
  assert.deepEqual(warnings, [
    "claude-code 2.1.328 shows its model tool results whole up to 488.2 KB: results in its " +
    "sessions are cut there (client ceiling: claude-code), below size_threshold 2MB and " +
    'client_ceiling 1MB; [serve.client_ceilings] "claude-code" sets another ceiling',
  ]);
});

Deno.test("a client's own text in the one line it is told stays short", async () => {
  const warnings: string[] = [];
  await using gw = await startHttpGateway({
    config: upstreamConfig(BIG_LOG),
    gateway: { warn: (message) => warnings.push(message) },
  });
  await gw.client({
    clientInfo: { name: "codex-mcp-client", version: `\x1b]0;owned\x07${"9".repeat(100_000)}` },
  });
  assert.equal(warnings.length, 1);
  assert.ok(warnings[0]!.length < 400, `${warnings[0]!.length} characters`);
  assert.ok(warnings[0]!.startsWith("codex-mcp-client \x1b]0;owned\x07999"), warnings[0]);
});

/** The notice and warning lines of one stdio session of each client (size_threshold 1MB, 2,000,000 bytes). */
const STDERR: Record<string, string[]> = {
  "codex-mcp-client": [
    "warning: codex-mcp-client 1.0 shows its model tool results whole up to 11.6 KB: results in " +
    "its sessions are cut there (client ceiling: codex), below size_threshold 1MB; " +
    '[serve.client_ceilings] "codex-mcp-client" sets another ceiling',
    "big_log: sent 11.6 KB of 1.9 MB to the assistant (client ceiling: codex)",
  ],
  "claude-code": [
    "warning: claude-code 1.0 shows its model tool results whole up to 488.2 KB: results in its " +
    "sessions are cut there (client ceiling: claude-code), below size_threshold 1MB; " +
    '[serve.client_ceilings] "claude-code" sets another ceiling',
    "big_log: sent 488.2 KB of 1.9 MB to the assistant (client ceiling: claude-code)",
  ],
  "my-agent": ["big_log: sent 1.0 MB of 1.9 MB to the assistant (size_threshold)"],
};

Deno.test("stdio: serve --stdio spawned by a client announcing itself as Codex or Claude Code", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway-client-ceiling-" });
  try {
    const config = join(dir, "config.toml");
    await Deno.writeTextFile(
      config,
      upstreamConfig(`[conversation.tools.'*']\nsize_threshold = "1MB"\n${BIG_LOG}`),
    );
    for (const name of ["codex-mcp-client", "claude-code", "my-agent"]) {
      const transport = new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", "-A", "--quiet", CLI, "serve", "--stdio", "--workspace", join(dir, name)]
          .concat(["--config", config]),
        cwd: dir,
        env: { ...Deno.env.toObject(), XDG_CONFIG_HOME: join(dir, "no-user-config") },
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on(
        "data",
        (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk),
      );
      const client = new Client({ name, version: "1.0" });
      await client.connect(transport);
      const expected = name === "my-agent" ? 1_048_576 : ceilingOf(name);
      try {
        for (const [tool, hint] of await hints(client)) assert.equal(hint, expected, tool);
        const result = await client.callTool({ name: "big_log", arguments: { bytes: 2_000_000 } });
        assert.equal(utf8(textOf(result)), expected);
      } finally {
        await client.close();
      }
      // What the person sees on stderr, word for word.
      const lines = stderr.split("\n").filter((line) => /^(big_log|warning): /.test(line));
      assert.deepEqual(lines, STDERR[name]);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
