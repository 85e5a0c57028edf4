/**
 * Test helper: the agent CLIs people run (Claude Code, Codex, Gemini CLI),
 * from npm at pinned versions, each run once, non-interactively and
 * offline, against a loopback fake of its model API, with one MCP server
 * configured (`spillway serve --stdio`, or an upstream directly). The fake
 * model calls one tool once (Claude Code first loads it with
 * `ToolSearch`), records the tool result exactly as the CLI passed it on,
 * and ends the turn. The CLI's home is a fresh folder; npm's and Deno's
 * caches are the machine's, so nothing is downloaded when they are warm
 * (`.ci/run` warms them).
 *
 * @module
 */

import { FakeModelServer, type RecordedRequest } from "../src/testing/fake_model_server.ts";
import { anthropicAnswer } from "../src/testing/anthropic_wire.ts";
import { geminiAnswer } from "../src/testing/gemini_wire.ts";
import { responsesAnswer } from "../src/testing/responses_wire.ts";
import { CLI } from "./_cli.ts";
import { join } from "./_paths.ts";

/** The CLIs, by the short name spillway's client table knows them by. */
export type AgentCliName = "claude-code" | "codex" | "gemini-cli";

/** The npm packages, pinned in `tests/fixtures/agent_clis/packages.txt` (which `.ci/run` installs). */
export const AGENT_CLI_PACKAGES: Readonly<Record<AgentCliName, string>> = Object.fromEntries(
  Deno.readTextFileSync(new URL("./fixtures/agent_clis/packages.txt", import.meta.url))
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    .map((line) => line.trim().split(/\s+/)),
) as Record<AgentCliName, string>;

/** What each CLI announces in `initialize` (`clientInfo.name`), measured. */
export const ANNOUNCED_NAMES: Readonly<Record<AgentCliName, string>> = {
  "claude-code": "claude-code",
  codex: "codex-mcp-client",
  "gemini-cli": "gemini-cli-mcp-client",
};

/** How a CLI starts the one MCP server it is given (named `spillway`). */
export interface StdioServerSpec {
  readonly command: string;
  readonly args: readonly string[];
  /** Variables set for it (Codex passes little else on). */
  readonly env?: Readonly<Record<string, string>>;
}

/** The one MCP server a CLI is given: one it starts, or one it reaches over HTTP (Claude Code only here). */
export type McpServerSpec = StdioServerSpec | { readonly type: "http"; readonly url: string };

/** `server` as one a CLI starts; the drivers but Claude Code's take only those. */
function stdioOnly(server: McpServerSpec): StdioServerSpec {
  if ("type" in server) throw new TypeError("this CLI is tested with a server it starts");
  return server;
}

/** What one run showed. */
export interface AgentRun {
  /** The texts the model received as the tool's result, in order; `undefined`: it never did. */
  readonly received: readonly string[] | undefined;
  /** Every request the fake model got. */
  readonly requests: readonly RecordedRequest[];
  /** The CLI's exit code, stdout and stderr. */
  readonly code: number;
  readonly output: string;
}

/** Options of {@linkcode runAgentCli}. */
export interface AgentRunOptions {
  /** The MCP server, configured as `spillway`. */
  readonly server: McpServerSpec;
  /** The tool the model calls (the server's name for it) and its arguments. */
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /**
   * Settings beside the defaults: Codex's `config.toml` lines, Gemini CLI's
   * `settings.json` entries. Default: none (each CLI's own defaults).
   */
  readonly settings?: string | Readonly<Record<string, unknown>>;
  /** The CLI is killed after this long, in ms. Default 180 s. */
  readonly timeoutMs?: number;
}

/** Deno's arguments that run the upstream of `big_log` (tests/fixtures/agent_clis/log_upstream.ts). */
export const LOG_UPSTREAM: readonly string[] = [
  "run",
  "--quiet",
  "-A",
  new URL("./fixtures/agent_clis/log_upstream.ts", import.meta.url).pathname,
];

/** `spillway serve --stdio` in front of the `big_log` upstream, as a CLI starts it. */
export interface SpillwayInFront {
  readonly server: StdioServerSpec;
  /** The tool results recorded so far, in every session's conversation. */
  recorded(): Promise<string[]>;
  /** The protocol revision each conversation's `session_start` recorded. */
  protocols(): Promise<string[]>;
}

/**
 * Writes `dir/config.toml` (the upstream as `providers.mcp.logs`, then
 * `extra`) and says how to start spillway with it, recording under `dir/ws`.
 */
export async function spillwayInFront(
  dir: string,
  extra = "",
  upstream: readonly string[] = LOG_UPSTREAM,
): Promise<SpillwayInFront> {
  const config = join(dir, "config.toml");
  await Deno.writeTextFile(
    config,
    `[providers.mcp.logs]\ntype = "stdio"\ncommand = ${JSON.stringify(Deno.execPath())}\n` +
      `arguments = ${JSON.stringify(upstream)}\n${extra}`,
  );
  const workspace = join(dir, "ws");
  return {
    server: {
      command: Deno.execPath(),
      args: ["run", "-A", "--quiet", CLI, "serve", "--stdio", "--workspace", workspace]
        .concat(["--config", config]),
      env: denoCacheEnv(),
    },
    recorded: () => recordedIn(workspace, "tool_call_response", "content"),
    protocols: () => recordedIn(workspace, "session_start", "protocol"),
  };
}

/** Field `field` of every event of `type` recorded in `workspace`'s conversations. */
export async function recordedIn(
  workspace: string,
  type: string,
  field: string,
): Promise<string[]> {
  const found: string[] = [];
  const conversations = join(workspace, "conversations");
  for await (const entry of Deno.readDir(conversations)) {
    const log = await Deno.readTextFile(join(conversations, entry.name, "events.jsonl"));
    for (const line of log.split("\n")) {
      const event = line === "" ? undefined : JSON.parse(line);
      if (event?.type === type) found.push(event[field]);
    }
  }
  return found;
}

/** The id of the tool call the fake model makes. */
const CALL_ID = "call_spillway_1";
/** The id of Claude Code's `ToolSearch` call that loads the tool first. */
const SEARCH_ID = "call_search_1";

type Json = Record<string, unknown>;
const array = (value: unknown): Json[] => Array.isArray(value) ? value as Json[] : [];
const texts = (content: unknown): string[] =>
  typeof content === "string"
    ? [content]
    : array(content).map((block) =>
      typeof block.text === "string" ? block.text : `[${block.type}]`
    );

/** One CLI: how the fake model answers it, where it put the result, how it is started. */
interface Driver {
  answer(request: RecordedRequest, tool: string, args: Json): ReturnType<typeof anthropicAnswer>;
  received(request: RecordedRequest, tool: string): string[] | undefined;
  start(
    home: string,
    url: string,
    options: AgentRunOptions,
  ): Promise<{ args: string[]; env: Json }>;
}

const claude: Driver = {
  answer(request, tool, args) {
    const last = array(request.body.messages).at(-1);
    const results = array(last?.content).filter((block) => block.type === "tool_result");
    const answered = (id: string) => results.some((block) => block.tool_use_id === id);
    const name = `mcp__spillway__${tool}`;
    if (answered(CALL_ID)) return anthropicAnswer({ text: "done" });
    if (answered(SEARCH_ID)) {
      return anthropicAnswer({ toolCalls: [{ id: CALL_ID, name, arguments: args }] });
    }
    const tools = array(request.body.tools).map((t) => t.name);
    if (!tools.includes("ToolSearch")) return anthropicAnswer({ text: "ok" });
    return anthropicAnswer({
      toolCalls: [{ id: SEARCH_ID, name: "ToolSearch", arguments: { query: `select:${name}` } }],
    });
  },
  received(request) {
    const last = array(request.body.messages).at(-1);
    const result = array(last?.content).find((block) => block.tool_use_id === CALL_ID);
    return result === undefined ? undefined : texts(result.content);
  },
  async start(home, url, { server }) {
    const config = join(home, "mcp.json");
    await Deno.writeTextFile(config, JSON.stringify({ mcpServers: { spillway: server } }));
    return {
      args: ["-p", "Call the tool.", "--mcp-config", config, "--strict-mcp-config"]
        .concat(["--allowedTools", "mcp__spillway", "--output-format", "json"]),
      env: {
        ANTHROPIC_BASE_URL: url,
        ANTHROPIC_API_KEY: "x",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_AUTOUPDATER: "1",
        MCP_CONNECTION_NONBLOCKING: "false",
      },
    };
  },
};

const codex: Driver = {
  answer(request, tool, args) {
    if (codex.received(request, tool) !== undefined) return responsesAnswer({ text: "done" });
    return responsesAnswer({
      toolCalls: [{ id: CALL_ID, name: tool, namespace: "mcp__spillway", arguments: args }],
    });
  },
  received(request) {
    const output = array(request.body.input).find((item) =>
      item.type === "function_call_output" && item.call_id === CALL_ID
    );
    return output === undefined ? undefined : texts(output.output);
  },
  async start(home, url, { server, settings }) {
    const toml = (value: unknown) => JSON.stringify(value);
    const lines = [
      `model_provider = "fake"`,
      `approval_policy = "never"`,
      typeof settings === "string" ? settings : "",
      `[model_providers.fake]`,
      `name = "fake"`,
      `base_url = ${toml(`${url}/v1`)}`,
      `wire_api = "responses"`,
      `env_key = "FAKE_MODEL_KEY"`,
      // Else it asks a public host for plugins (`git ls-remote`).
      `[features]`,
      `plugins = false`,
      `[mcp_servers.spillway]`,
      `command = ${toml(stdioOnly(server).command)}`,
      `args = ${toml(stdioOnly(server).args)}`,
      `env = { ${
        Object.entries(stdioOnly(server).env ?? {}).map(([k, v]) => `${k} = ${toml(v)}`)
      } }`,
      `required = true`,
      `default_tools_approval_mode = "approve"`,
    ];
    await Deno.writeTextFile(join(home, "config.toml"), lines.join("\n") + "\n");
    return {
      args: ["exec", "--skip-git-repo-check", "--ephemeral", "--json", "Call the tool."],
      env: { CODEX_HOME: home, FAKE_MODEL_KEY: "x" },
    };
  },
};

const gemini: Driver = {
  answer(request, tool, args) {
    if (gemini.received(request, tool) !== undefined) return geminiAnswer({ text: "done" });
    return geminiAnswer({
      toolCalls: [{ id: CALL_ID, name: `mcp_spillway_${tool}`, arguments: args }],
    });
  },
  received(request, tool) {
    for (const content of array(request.body.contents)) {
      for (const part of array(content.parts)) {
        const response = part.functionResponse as Json | undefined;
        if (response?.name !== `mcp_spillway_${tool}`) continue;
        const body = response.response as Json | undefined;
        return typeof body?.output === "string" ? [body.output] : [JSON.stringify(body)];
      }
    }
    return undefined;
  },
  async start(home, url, { server, settings }) {
    await Deno.mkdir(join(home, ".gemini"));
    await Deno.writeTextFile(
      join(home, ".gemini", "settings.json"),
      JSON.stringify({
        telemetry: { enabled: false },
        general: { disableAutoUpdate: true },
        security: { auth: { selectedType: "gemini-api-key" } },
        mcpServers: { spillway: { ...stdioOnly(server), trust: true } },
        ...(typeof settings === "object" ? settings : {}),
      }),
    );
    return {
      args: ["-p", "Call the tool.", "--approval-mode", "yolo", "-o", "json"]
        .concat(["-m", "gemini-2.5-pro"]),
      env: {
        GEMINI_API_KEY: "x",
        GOOGLE_GEMINI_BASE_URL: url,
        GEMINI_CLI_TRUST_WORKSPACE: "true",
      },
    };
  },
};

const DRIVERS: Readonly<Record<AgentCliName, Driver>> = {
  "claude-code": claude,
  codex,
  "gemini-cli": gemini,
};

/** npm's cache (where `.ci/run` installed the CLIs) and Deno's, as this machine has them. */
function caches(): { npm: string; deno: string } {
  const home = Deno.env.get("HOME") ?? "/root";
  return {
    npm: Deno.env.get("npm_config_cache") ?? join(home, ".npm"),
    deno: Deno.env.get("DENO_DIR") ?? join(home, ".cache", "deno"),
  };
}

/** `DENO_DIR` for a Deno server a CLI starts with its own (empty) home. */
export function denoCacheEnv(): Record<string, string> {
  return { DENO_DIR: caches().deno };
}

/**
 * Why `cli` cannot run here without the network (`undefined`: it can): npx
 * finds its pinned package in npm's cache, or not.
 */
export async function agentCliMissing(cli: AgentCliName): Promise<string | undefined> {
  const { code } = await new Deno.Command("npx", {
    args: ["--offline", "-y", AGENT_CLI_PACKAGES[cli], "--version"],
    env: { npm_config_cache: caches().npm, npm_config_update_notifier: "false" },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output().catch(() => ({ code: -1 }));
  return code === 0 ? undefined : `${AGENT_CLI_PACKAGES[cli]} is not in npm's cache`;
}

/** Runs `cli` once; see the module summary. */
export async function runAgentCli(cli: AgentCliName, options: AgentRunOptions): Promise<AgentRun> {
  const driver = DRIVERS[cli];
  const args = options.arguments as Json;
  const server = FakeModelServer.start((request) => driver.answer(request, options.tool, args));
  const home = await Deno.makeTempDir({ prefix: `spillway-${cli}-` });
  try {
    const started = await driver.start(home, server.url, options);
    const { npm } = caches();
    const child = new Deno.Command("npx", {
      args: ["-y", "--prefer-offline", AGENT_CLI_PACKAGES[cli], ...started.args],
      cwd: home,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: home,
        npm_config_cache: npm,
        npm_config_update_notifier: "false",
        NO_COLOR: "1",
        ...started.env as Record<string, string>,
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(options.timeoutMs ?? 180_000),
    }).spawn();
    const { code, stdout, stderr } = await child.output();
    const decoder = new TextDecoder();
    const received = server.requests.map((request) => driver.received(request, options.tool))
      .find((found) => found !== undefined);
    return {
      received,
      requests: server.requests,
      code,
      output: `${decoder.decode(stdout)}\n${decoder.decode(stderr)}`,
    };
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}

/**
 * Whether `received` is exactly `text` as `cli` presents a result it did
 * not touch: Claude Code as it is; Codex after its own first block
 * (`Wall time: … seconds\nOutput:`); Gemini CLI in its `<untrusted_context>`
 * wrapper.
 */
export function passedWhole(cli: AgentCliName, received: readonly string[], text: string): boolean {
  if (cli === "claude-code") return received.length === 1 && received[0] === text;
  if (cli === "codex") {
    return received.length === 2 && /^Wall time: [\d.]+ seconds\nOutput:$/.test(received[0]!) &&
      received[1] === text;
  }
  return received.length === 1 &&
    received[0] === `<untrusted_context>\n${text}\n</untrusted_context>`;
}
