/**
 * `spillway serve`: puts spillway in front of any MCP client. The client
 * either spawns it (`--stdio`) or connects to it over Streamable HTTP
 * (`--http [HOST:]PORT`, path `/mcp`). Every tool call a client makes is
 * capped, recorded in that client session's conversation stream, flushed,
 * and only then delivered, exactly as the calls of `spillway query`.
 *
 * @module
 */

import { resolve } from "node:path";
import { loadConfig } from "../config/load_config.ts";
import {
  DEFAULT_CLIENT,
  DEFAULT_SERVE_TOKEN_ENV,
  type ServeConfig,
} from "../config/serve_config.ts";
import type { SpillwayConfig } from "../config/spillway_config.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import { Gateway } from "../gateway/gateway.ts";
import { isLoopback } from "../gateway/http_access.ts";
import { KNOWN_CLIENTS } from "../gateway/session_ceiling.ts";
import { serveHttp } from "../gateway/serve_http.ts";
import { serveStdio } from "../gateway/serve_stdio.ts";
import type { InputRoundsOptions } from "../gateway/input_rounds.ts";
import { StopSignals } from "../terminal/stop_signals.ts";
import { enableVerboseLogging } from "../terminal/verbose_logging.ts";
import { reasonText } from "../errors/reason_text.ts";
import { TerminalPrompter } from "../terminal/terminal_prompter.ts";
import { formatNotice } from "../review/notice.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import { unknownToolWarnings } from "../config/unknown_tool_warnings.ts";
import { DEFAULT_WORKSPACE } from "../runtime/create_runtime.ts";
import { BUILTIN_TOOLS } from "../service/builtin/builtin_tools.ts";
import { openStore } from "../runtime/open_store.ts";
import type { Inspection } from "../inspector/inspection.ts";
import { ByteSize } from "../size/byte_size.ts";
import { plural } from "../terminal/plural.ts";
import { MIN_SIZE_THRESHOLD_BYTES } from "../size/size_threshold.ts";
import type { Command } from "./command.ts";
import type { CommandIo } from "./command_io.ts";
import { CONFIG_FLAGS, configOptionsFromFlags, OUTPUT_FLAGS } from "./_common_flags.ts";
import { INSPECT_FLAGS, inspectionRequest, openInspection } from "./_inspection_flags.ts";
import { printConfigProblems } from "./_config_problems.ts";
import type { ParsedFlags } from "./_flags.ts";
import { serveTokens } from "./_serve_tokens.ts";
import { keepWorkspacePrivate } from "./_workspace.ts";

/** The environment variable holding the HTTP bearer token unless `serve.token_env` names another. */
export const TOKEN_ENV = DEFAULT_SERVE_TOKEN_ENV;

/** `spillway serve`. */
export const serveCommand: Command = {
  name: "serve",
  summary: "be the MCP server of any MCP client: capped, recorded tool results",
  usage: "spillway serve (--stdio | --http [HOST:]PORT) [--workspace DIR] [--config FILE]... " +
    "[--cfg KEY=VALUE]... [--client-ceiling SIZE] [--no-auth] [--inspect FILE]",
  description: `Serves the configured tools (local commands, upstream MCP servers, and the
builtin fs_list_files and fs_read_file when [conversation.tools] has an entry
for them) to an MCP client. Each client session records its calls in its own
conversation under <workspace>/conversations/; results are capped (each
tool's size_threshold, the client ceiling, the 2 MiB batch ceiling), made
durable, and only then delivered, byte for byte as recorded.

Both MCP protocol eras are served: 2025-11-25 sessions (initialize) and
2026-07-28 requests, which carry no session (docs/protocol.md): over HTTP a
2026-07-28 request joins its client's conversation named by its
Spillway-Conversation header, else by an id in its _meta, else by its
client's name.

--stdio: the client spawns spillway; stdout carries only the protocol,
notices and logs go to stderr. The first message sets the era.

--http [HOST:]PORT: Streamable HTTP at /mcp, bound to 127.0.0.1 unless a
host is given; the URL is printed on stdout, one line, once listening (the
real port for port 0). Requests need "Authorization: Bearer <token>": the
token is $${TOKEN_ENV} (or the variable serve.token_env names) if set, else
generated and printed to stderr. --no-auth turns it off, and is refused
unless the address is loopback. A POST larger than serve.max_request_size
(4MB) is refused with 413; pages of loopback origins and of
serve.allowed_origins get CORS answers (docs/security.md).
A session that sends nothing for serve.session_idle_timeout (30m) is
closed, and a request naming it then gets 404 (the client initializes
anew); past serve.max_sessions (1000) open sessions an initialize gets 503
with Retry-After. An idle session holds no file.

An upstream server that does not answer within its startup_timeout is
reported on stderr and started again in the background; the others are
served meanwhile, and its tools once it answers (clients are told with
notifications/tools/list_changed).

Clients of their own: [serve.tokens.NAME] env = "VAR" gives client NAME its
own token, read from $VAR (the token above is client "default"). A client's
sessions answer only its token (any other gets 404), it reads only the
stored outputs it produced, it has its own connection to each upstream
server (started on its first call, stopped when its last session ends),
upstream notifications reach only its sessions, and its conversations are
recorded apart (ids ending in .NAME; notices and conversation ls name it).
--stdio serves the default client only. The builtin file tools never reach
the workspace.

Client ceilings: agent CLIs cut long tool results again, or move them into
a file, after spillway recorded them, so their model would read a text
nobody recorded. spillway knows each client by the name it announces at
initialize and caps that session's results below the client's own limit,
as measured (docs/clients.md): ${knownCeilings()};
the notice then says e.g. (client ceiling: codex).
[serve.client_ceilings] "NAME" = "SIZE" adds a client or overrides one (say
you raised Codex's tool_output_token_limit); set no ceiling above what the
client shows its model whole. Tools are listed to each session with
_meta["anthropic/maxResultSizeChars"] set to the limit spillway enforces in
that session.

--client-ceiling SIZE: caps every session (at least 1KB), whatever the
client; the flag wins over serve.client_ceiling.

--inspect FILE: every session's actors and upstream connections, as XState
inspection events with the sizes before and after each cap, one JSON line
each, each naming its session; spillway inspect --serve FILE shows them
live. --inspect-ws URL sends the same events to a WebSocket as Stately's
inspection protocol (contents as sizes and digests).

SIGINT, SIGTERM or SIGHUP: new calls are refused, running calls are
cancelled (recorded as cancelled by the shutdown, unless the tool sets
a cancellation_response), every result is
recorded and flushed before it is delivered, the upstream servers are
stopped, and spillway exits 0.`,
  flags: [
    { name: "stdio", kind: "boolean", help: "serve one client on stdin/stdout" },
    {
      name: "http",
      kind: "string",
      valueName: "[HOST:]PORT",
      help: "serve Streamable HTTP at /mcp (HOST defaults to 127.0.0.1)",
    },
    ...CONFIG_FLAGS,
    {
      name: "client-ceiling",
      kind: "string",
      valueName: "SIZE",
      help: "no result larger than SIZE in any session, e.g. 64KB (default: each client's own)",
    },
    { name: "no-auth", kind: "boolean", help: "no bearer token (loopback addresses only)" },
    ...INSPECT_FLAGS,
    ...OUTPUT_FLAGS,
  ],
  run,
};

/** The known clients' ceilings, as the help lists them. */
function knownCeilings(): string {
  return KNOWN_CLIENTS.map(({ name, product, bytes }) =>
    `${name} (${product}) ${bytes.toLocaleString("en-US")} bytes`
  ).join(",\n");
}

/** `[HOST:]PORT` → hostname and port. */
export function parseListenAddress(value: string): { hostname: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(value.trim());
  const port = match === null ? NaN : Number(match[2]);
  if (match === null || port > 65535) {
    throw new SpillwayError(
      "usage",
      `--http \`${value}\` is not an address: expected PORT or HOST:PORT (e.g. 8931, 127.0.0.1:8931)`,
    );
  }
  const host = match[1] ?? "127.0.0.1";
  return { hostname: host.startsWith("[") ? host.slice(1, -1) : host, port };
}

function parseCeiling(value: string | undefined): ByteSize | undefined {
  if (value === undefined) return undefined;
  let size: ByteSize;
  try {
    size = ByteSize.parse(value);
  } catch (error) {
    throw new SpillwayError("usage", `--client-ceiling: ${(error as Error).message}`);
  }
  if (size.bytes < MIN_SIZE_THRESHOLD_BYTES) {
    throw new SpillwayError(
      "usage",
      `--client-ceiling \`${value}\` is below the 1KB minimum: leave it out for no ceiling`,
    );
  }
  return size;
}

async function run(flags: ParsedFlags, io: CommandIo): Promise<number> {
  const stdio = flags.boolean("stdio");
  const httpValue = flags.string("http");
  if (stdio === (httpValue !== undefined)) {
    throw new SpillwayError("usage", "choose one transport: --stdio or --http [HOST:]PORT");
  }
  const address = httpValue === undefined ? undefined : parseListenAddress(httpValue);
  const noAuth = flags.boolean("no-auth");
  if (noAuth && stdio) throw new SpillwayError("usage", "--no-auth only applies to --http");
  if (noAuth && address !== undefined && !isLoopback(address.hostname)) {
    throw new SpillwayError(
      "usage",
      `--no-auth is refused on \`${address.hostname}\`: without a token anyone who can reach ` +
        `that address can run your tools; bind a loopback address (127.0.0.1) or keep the token`,
    );
  }
  const ceilingFlag = parseCeiling(flags.string("client-ceiling"));
  const options = configOptionsFromFlags(flags, io);
  let config: SpillwayConfig;
  try {
    config = await loadConfig(options);
  } catch (error) {
    if (printConfigProblems(error, io)) return 1;
    throw error;
  }
  const settings = config.serve();
  const clientCeiling = ceilingFlag ?? settings.clientCeiling?.value;
  // Only an HTTP gateway with authentication reads tokens: --stdio serves the one client that
  // started it, --no-auth takes every request as the default client's.
  const tokens = address === undefined || noAuth ? undefined : serveTokens(settings, io.env);
  const workspace = resolve(io.cwd, options.workspace ?? DEFAULT_WORKSPACE);
  await keepWorkspacePrivate(workspace, io);
  // Listening from the start: a signal while upstream servers start must not
  // kill spillway and leave them running.
  using stop = StopSignals.listen({
    onStop: (_signal, says) =>
      io.stderr(`spillway serve: ${says}: finishing the calls in flight, then exiting\n`),
  });
  // The conversations and stored outputs: the workspace's folders, or the database
  // every gateway of a team shares.
  const store = openStore(config, workspace, io.env);
  let inspection: Inspection | undefined;
  try {
    inspection = await openInspection(inspectionRequest(flags), io);
  } catch (error) {
    await store.close();
    throw error;
  }
  const stopLogging = await enableVerboseLogging(flags.count("verbose"), io.stderr);
  // Notices and warnings name tools (from upstream servers, clients, config): one inert line each.
  const printLine = (line: string) =>
    io.stderr(`${sanitizeForTerminal(line, { singleLine: true })}\n`);
  try {
    // Reached at start: an unreachable database is said now, not at the first call.
    await store.check();
    const gateway = await Gateway.start({
      config,
      workspace,
      store: store.conversations,
      blobs: store.blobs,
      cwd: io.cwd,
      clientCeiling,
      noticeSink: { notice: (fact) => printLine(formatNotice(fact)) },
      // An upstream server's own stderr is outside text too (stdout stays the protocol's).
      upstreamStderr: (text) => io.stderr(sanitizeForTerminal(text)),
      warn: (message) => printLine(`warning: ${message}`),
      // On stdio, stdin is the protocol: nobody can be asked.
      prompter: !stdio && Deno.stdin.isTerminal() ? new TerminalPrompter({ io }) : undefined,
      ...(inspection === undefined ? {} : { inspect: (session) => inspection.observer(session) }),
      // The clients told apart by their tokens: each has its own upstream servers.
      clients: tokens?.clients.map((entry) => entry.client) ?? [DEFAULT_CLIENT],
    });
    // A misspelled entry would apply to nothing: say so at start, then serve.
    // The file tools count as known: an entry that misspells one is told its name.
    const tools = [...gateway.tools.map((tool) => tool.name), ...BUILTIN_TOOLS.map((t) => t.name)];
    // The tools of a server not answering yet are unknown: its entries are not checked (it was
    // reported already; a line of its own is left out).
    const notConsulted = gateway.notAnswering;
    const reported = new Set(
      notConsulted.map(({ reason }) => `${reason}; its tools were not listed`),
    );
    for (const warning of unknownToolWarnings(config, { tools, notConsulted })) {
      if (!reported.has(warning)) printLine(`warning: ${warning}`);
    }
    for (const warning of tokens?.warnings ?? []) printLine(`warning: ${warning}`);
    if (noAuth && settings.tokens.size > 0) {
      printLine(
        `warning: --no-auth: every request is the default client's; the ${
          plural(settings.tokens.size, "client")
        } of [serve.tokens] cannot be told apart without tokens`,
      );
    }
    const quiet = flags.boolean("quiet");
    const where = store.where;
    const stopped = new Promise<void>((resolve) => {
      if (stop.signal.aborted) resolve();
      stop.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    let serving: { close(): Promise<void> } | undefined;
    try {
      if (stop.signal.aborted) return 0;
      if (address === undefined) {
        const stdio = await serveStdio(gateway, undefined, inputRounds(settings));
        serving = { close: () => stdio.session.close() };
        if (!quiet) {
          io.stderr(
            `spillway serve: ${gateway.tools.length} tools on stdio; ` +
              `conversation ${stdio.session.conversationId} in ${where}\n`,
          );
        }
        await Promise.race([stdio.ended, stopped]);
      } else {
        const [defaultClient, ...others] = tokens?.clients ?? [];
        const http = await serveHttp(gateway, {
          ...address,
          token: defaultClient?.token,
          clients: others,
          allowedOrigins: settings.allowedOrigins.value,
          maxRequestBytes: settings.maxRequestSize.value.bytes,
          maxSessions: settings.maxSessions.value,
          sessionIdleTimeoutMs: settings.sessionIdleTimeout.value.ms,
          inputs: inputRounds(settings),
        });
        serving = http;
        // The one line on stdout, for a supervisor or a script to read (port 0: the real port).
        io.stdout(`${http.url}\n`);
        io.stderr(`spillway serve: ${gateway.tools.length} tools at ${http.url}\n`);
        if (tokens?.generated !== undefined) io.stderr(`bearer token: ${tokens.generated}\n`);
        if (!quiet) io.stderr(`conversations: ${where}\n`);
        await stopped;
      }
    } finally {
      // Calls in flight end first (cancelled, recorded, released), while
      // their clients are still connected; then the listener goes.
      await gateway.close(
        stop.signal.aborted
          ? `spillway serve is shutting down (${reasonText(stop.signal.reason)})`
          : undefined,
      );
      await serving?.close();
    }
    return 0;
  } finally {
    await inspection?.close();
    await stopLogging();
    await store.close();
  }
}

/** The limits of calls waiting for their client's input, from `[serve]`. */
function inputRounds(settings: ServeConfig): InputRoundsOptions {
  return {
    timeoutMs: settings.inputTimeout.value.ms,
    maxWaiting: settings.maxInputWaits.value,
    maxRoundBytes: settings.maxInputSize.value.bytes,
  };
}
