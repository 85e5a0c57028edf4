/**
 * Turns the configuration into tool sources for the execution service:
 * builtin tools (all of them, or only those the configuration names), plus
 * any registered in code, one local source for every
 * `source = "local"` entry, one upstream source per `providers.mcp.<name>`,
 * and the renames that `source = "mcp.<server>.<tool>"` entries ask for.
 * Every process these sources start (a local tool, a stdio server) gets its
 * environment from {@linkcode childEnvironment}: the default variables, what
 * its `pass_env` names and its `environment`, never spillway's secrets
 * ({@linkcode secretVariables}) unless named.
 *
 * @module
 */

import type { InspectionEvent } from "xstate";
import type { McpProviderConfig } from "../config/mcp_provider_config.ts";
import { secretVariables } from "../config/secret_variables.ts";
import type { SpillwayConfig } from "../config/spillway_config.ts";
import type { BuiltinTool } from "../service/builtin/builtin_tool.ts";
import { BUILTIN_TOOLS } from "../service/builtin/builtin_tools.ts";
import { BuiltinToolSource } from "../service/builtin/builtin_tool_source.ts";
import type { ToolRoute } from "../service/execution_service.ts";
import { LocalToolSource, type LocalToolSpec } from "../service/local/local_tool_source.ts";
import type { TimerClock } from "../service/timer_clock.ts";
import type { ToolSource } from "../service/tool_source.ts";
import { McpUpstreamSource } from "../service/upstream/mcp_upstream_source.ts";
import type { RestartPolicy } from "../service/upstream/restart_policy.ts";
import { childEnvironment } from "../service/subprocess/child_environment.ts";
import { StderrWindow } from "../service/upstream/stderr_window.ts";
import { isJsonStrategy } from "../size/truncation.ts";
import { upstreamTimeoutFor } from "./upstream_timeout_for.ts";
import { environment } from "../platform/processes.ts";

/** Sources and renames for one runtime. */
export interface ToolSourcesPlan {
  readonly sources: ToolSource[];
  readonly routes: Record<string, ToolRoute>;
}

/** Options of {@linkcode toolSourcesFromConfig}. */
export interface ToolSourcesOptions {
  /** Working directory of builtin file tools and local commands. */
  readonly cwd: string;
  /** Builtin tools registered in code, beside `fs_list_files` and `fs_read_file`. */
  readonly tools?: readonly BuiltinTool[];
  /**
   * Which of `fs_list_files` and `fs_read_file` are served: `"all"`
   * (`query`: an assistant of one's own gets them), or `"configured"`, only
   * those with an entry of their own in `[conversation.tools]` that does not
   * name another source (`serve`: a gateway offers its clients what it was
   * configured to offer). Default `"all"`.
   */
  readonly builtins?: "all" | "configured";
  /**
   * Folders under `cwd` the builtin file tools never reach (`serve`: the
   * workspace, every client's conversations and outputs). Default: none.
   */
  readonly hidden?: readonly string[];
  /**
   * Where upstream servers' stderr goes: `"inherit"`, `"null"`, or a text
   * sink, which gets at most `STDERR_WINDOW_BYTES` of each server's a
   * minute (and a line saying what was dropped). Default: `"inherit"`.
   */
  readonly upstreamStderr?: "inherit" | "null" | ((text: string) => void);
  /** Receives what a person should know (an upstream server started again). Default: the log. */
  readonly warn?: (message: string) => void;
  /**
   * Whether callers answer upstream servers' sampling and elicitation
   * requests (`spillway serve` relays them to its clients). Default: `false`.
   */
  readonly relayInquiries?: boolean;
  /**
   * spillway's own environment, of which the processes it starts get part.
   * Default: `Deno.env.toObject()`, read when the sources are built.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The clock every source's time limits run on. Default: the real one. */
  readonly clock?: TimerClock;
  /**
   * When an upstream server that is down starts again (`serve`: in the
   * background). Default: on demand, the next call or listing starts it.
   */
  readonly restart?: RestartPolicy;
  /** The receiver of each upstream connection's XState inspection events, per source name. Default: none. */
  readonly inspect?: (source: string) => (event: InspectionEvent) => void;
}

/** Options of {@linkcode upstreamToolSource}. */
export interface UpstreamToolSourceOptions extends ToolSourcesOptions {
  /** How long a call of a tool (the server's name for it) may run, in ms. Default: 120 s. */
  readonly timeoutFor?: (tool: string) => number;
  /** The variables a stdio server never gets unless its `pass_env` names them: `secretVariables(config)`. */
  readonly secrets: Iterable<string>;
}

/**
 * Builds the tool sources the configuration describes. Nothing is started:
 * upstream servers connect on first use.
 */
export function toolSourcesFromConfig(
  config: SpillwayConfig,
  options: ToolSourcesOptions,
): ToolSourcesPlan {
  const timeoutOf = (tool: string) => config.tool(tool).timeoutMs();
  const inherited = options.env ?? environment();
  const secrets = secretVariables(config).map((secret) => secret.name);
  const named = new Set(config.toolNames());
  const builtins = options.builtins === "configured"
    ? BUILTIN_TOOLS.filter(({ name }) =>
      named.has(name) && (config.tool(name).source()?.kind ?? "builtin") === "builtin"
    )
    : BUILTIN_TOOLS;
  // A json cut of an output too large to hold needs it scanned as it streams.
  const scansJson = (tool: string) => isJsonStrategy(config.tool(tool).truncation().strategy);
  const sources: ToolSource[] = [
    new BuiltinToolSource({
      cwd: options.cwd,
      ...(options.hidden === undefined ? {} : { hidden: options.hidden }),
      tools: [...builtins, ...(options.tools ?? [])],
      timeoutFor: timeoutOf,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      scansJsonFor: scansJson,
    }),
  ];
  const routes: Record<string, ToolRoute> = {};
  const local: LocalToolSpec[] = [];
  for (const name of config.toolNames()) {
    const tool = config.tool(name);
    const source = tool.source();
    if (source?.kind === "local") {
      const command = tool.command() ?? [];
      const description = tool.description();
      local.push({
        name,
        command,
        timeoutMs: tool.timeoutMs(),
        cwd: options.cwd,
        env: childEnvironment(inherited, { secrets, passEnv: tool.passEnv() }),
        clearEnv: true,
        scansJson: scansJson(name),
        ...(description === undefined ? {} : { description }),
      });
    } else if (source?.kind === "mcp") {
      const origin = tool.describe("source");
      routes[name] = {
        source: `mcp.${source.server}`,
        sourceTool: source.tool,
        ...(origin === undefined ? {} : { origin }),
      };
    }
  }
  if (local.length > 0) {
    sources.push(
      new LocalToolSource({
        tools: local,
        ...(options.clock === undefined ? {} : { clock: options.clock }),
      }),
    );
  }
  for (const provider of config.mcpProviders()) {
    sources.push(
      upstreamToolSource(provider, {
        ...options,
        env: inherited,
        secrets,
        timeoutFor: upstreamTimeoutFor(config, provider.name),
      }),
    );
  }
  return { sources, routes };
}

/**
 * The tool source of one `providers.mcp.<name>` server (not started yet):
 * a process spillway runs (`stdio`), or an endpoint it connects to
 * (`http`). `config check` uses it alone to list a server's tools.
 */
export function upstreamToolSource(
  provider: McpProviderConfig,
  options: UpstreamToolSourceOptions,
): ToolSource {
  const common = {
    name: `mcp.${provider.name}`,
    startupTimeoutMs: provider.startupTimeoutMs,
    protocol: provider.protocol,
    ...(options.timeoutFor === undefined ? {} : { timeoutFor: options.timeoutFor }),
    ...(options.warn === undefined ? {} : { warn: options.warn }),
    relayInquiries: options.relayInquiries ?? false,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.restart === undefined ? {} : { restart: options.restart }),
    ...(options.inspect === undefined ? {} : { inspect: options.inspect(`mcp.${provider.name}`) }),
  };
  if (provider.type === "http") {
    return new McpUpstreamSource({ ...common, url: provider.url, headers: provider.headers });
  }
  // What reaches spillway's own stderr is bounded per server (and says what it dropped).
  const stderr = options.upstreamStderr ?? "inherit";
  return new McpUpstreamSource({
    ...common,
    command: provider.command,
    args: provider.arguments,
    env: childEnvironment(options.env ?? environment(), {
      secrets: options.secrets,
      passEnv: provider.passEnv,
      set: provider.environment,
    }),
    clearEnv: true,
    cwd: options.cwd,
    stderr: typeof stderr === "function"
      ? new StderrWindow({ label: `mcp.${provider.name}`, sink: stderr })
      : stderr,
  });
}
