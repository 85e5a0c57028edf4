/**
 * Measures what each agent CLI passes to its model untouched: the name and
 * version it announces in `initialize`, then, by bisection over result
 * sizes, the largest result of a real upstream tool (`big_log`, through
 * `spillway serve --stdio`, which is told not to cut: `size_threshold =
 * "unlimited"` and every client ceiling at the 2 MiB batch ceiling) that
 * reaches the model exactly as spillway delivered it, in each CLI's default
 * settings. `--direct` runs the upstream without spillway in front (no
 * `_meta` result-size hint); `--kind cjk` measures with a Chinese log;
 * `--set` passes CLI settings (Codex TOML lines, Gemini CLI settings JSON).
 *
 * Run: `deno run -A tests/measure_client_limits.ts [claude-code|codex|gemini-cli]...
 * [--direct] [--kind cjk] [--from BYTES] [--to BYTES] [--set SETTINGS]`
 * (each step is one run of the CLI: a few seconds).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { Client, StdioClientTransport } from "../src/service/sdk.ts";
import {
  AGENT_CLI_PACKAGES,
  type AgentCliName,
  denoCacheEnv,
  LOG_UPSTREAM,
  passedWhole,
  runAgentCli,
  spillwayInFront,
} from "./_agent_clis.ts";
import { join } from "./_paths.ts";

const PROBE = new URL("./fixtures/agent_clis/client_info_probe.ts", import.meta.url).pathname;

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    direct: { type: "boolean", default: false },
    kind: { type: "string", default: "log" },
    from: { type: "string", default: "1000" },
    to: { type: "string", default: "2000000" },
    set: { type: "string" },
  },
});
const clis =
  (positionals.length > 0 ? positionals : Object.keys(AGENT_CLI_PACKAGES)) as AgentCliName[];

const dir = await Deno.makeTempDir({ prefix: "spillway-client-limits-" });
const spillway = await spillwayInFront(
  dir,
  `[conversation.tools.'*']
size_threshold = "unlimited"

[serve.client_ceilings]
"claude-code" = "2MB"
"codex-mcp-client" = "2MB"
"gemini-cli-mcp-client" = "2MB"
`,
);
const server = values.direct
  ? { command: Deno.execPath(), args: LOG_UPSTREAM, env: denoCacheEnv() }
  : spillway.server;
const settings = values.set === undefined
  ? undefined
  : values.set.trim().startsWith("{")
  ? JSON.parse(values.set)
  : values.set;

/** Whether the model got the `bytes`-byte result exactly as the upstream sent it (and spillway passed it on). */
async function untouched(cli: AgentCliName, bytes: number): Promise<boolean> {
  const run = await runAgentCli(cli, {
    server,
    tool: "big_log",
    arguments: { bytes, kind: values.kind },
    ...(settings === undefined ? {} : { settings }),
  });
  if (run.received === undefined) throw new Error(`${cli}: no tool result\n${run.output}`);
  const expected = await uncut(bytes);
  const whole = passedWhole(cli, run.received, expected);
  const got = run.received.map((text) => new TextEncoder().encode(text).length);
  console.error(`  ${cli} ${bytes} B: ${whole ? "whole" : `changed (blocks of ${got} B)`}`);
  return whole;
}

/** What the upstream returns for `bytes` (spillway with no limit passes it on whole). */
async function uncut(bytes: number): Promise<string> {
  const client = new Client({ name: "measure", version: "1" });
  await client.connect(
    new StdioClientTransport({ command: Deno.execPath(), args: [...LOG_UPSTREAM] }),
  );
  try {
    const result = await client.callTool({
      name: "big_log",
      arguments: { bytes, kind: values.kind },
    });
    return (result.content as { text: string }[])[0]!.text;
  } finally {
    await client.close();
  }
}

/** What `cli` announces in `initialize`. */
async function announced(cli: AgentCliName): Promise<string> {
  const file = join(dir, `${cli}.client.jsonl`);
  await runAgentCli(cli, {
    server: {
      command: Deno.execPath(),
      args: ["run", "--quiet", "-A", PROBE, file],
      env: denoCacheEnv(),
    },
    tool: "none",
    arguments: {},
  });
  return (await Deno.readTextFile(file)).split("\n")[0] ?? "";
}

try {
  for (const cli of clis) {
    console.error(`${cli} (${AGENT_CLI_PACKAGES[cli]}): clientInfo ${await announced(cli)}`);
    let low = Number(values.from);
    let high = Number(values.to);
    if (!await untouched(cli, low)) throw new Error(`${cli}: ${low} B is already changed`);
    if (await untouched(cli, high)) {
      console.log(`${cli}\t${AGENT_CLI_PACKAGES[cli]}\t≥ ${high} B whole`);
      continue;
    }
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (await untouched(cli, middle)) low = middle;
      else high = middle;
    }
    console.log(
      `${cli}\t${AGENT_CLI_PACKAGES[cli]}\tlargest whole: ${low} B (${values.kind}` +
        `${values.direct ? ", direct" : ", through spillway"}); ${high} B is changed`,
    );
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
