import assert from "node:assert/strict";
import { SpillwayError } from "../errors/spillway_error.ts";
import { parseConfig } from "./parse_config.ts";

/** The problems `text` is rejected with, one per entry. */
function problems(text: string): string[] {
  try {
    parseConfig(text, "c.toml");
  } catch (error) {
    assert.ok(error instanceof SpillwayError);
    assert.equal(error.code, "config_invalid");
    const listed = error.details["errors"];
    assert.ok(Array.isArray(listed));
    assert.equal(error.message, listed.join("\n"));
    return listed as string[];
  }
  assert.fail("expected the config to be rejected");
}

Deno.test("parseConfig() accepts an empty document and applies the built-in defaults", () => {
  const config = parseConfig("");
  const tool = config.tool("anything");
  assert.equal(tool.run(), "unattended");
  assert.equal(tool.result(), "unattended");
  assert.equal(tool.sizeThreshold().toString(), "256KB");
  assert.equal(tool.inlineResults(), 10);
  assert.equal(tool.resultsFileLink(), "osc8");
  assert.equal(tool.cancellationResponse(), "The user cancelled this tool call.");
  assert.equal(tool.timeoutMs(), 120_000);
  assert.equal(tool.source(), undefined);
  assert.deepEqual(config.toolNames(), []);
  assert.deepEqual(config.mcpProviders(), []);
  assert.deepEqual(config.sources.map((s) => s.label), ["default", "<inline>"]);
});

Deno.test("parseConfig() reads the whole tool vocabulary (docs/configuration.md)", () => {
  const config = parseConfig(
    `
[conversation.tools.'*']
run = "ask"
result = "edit"
size_threshold = "512KB"
cancellation_response = "Cancelled."
style.inline_results = "full"
style.results_file_link = "off"
timeout = 30

[conversation.tools.cargo_test]
source = "local"
command = ["cargo", "test"]
pass_env = ["CARGO_HOME", "RUST*"]
timeout = 2.5
size_threshold = 2048
description = "Runs the tests."

[conversation.tools.search]
source = "mcp.github.search_code"
size_threshold = "unlimited"
style = { inline_results = 0 }

[providers.mcp.github]
type = "stdio"
command = "github-mcp-server"
arguments = ["stdio"]
environment = { GITHUB_TOKEN = "t" }
pass_env = ["GH_*"]

[providers.mcp.remote]
type = "http"
url = "https://example.test/mcp"
startup_timeout = 2.5
`,
    "full.toml",
  );
  const star = config.tool("other");
  assert.equal(star.run(), "ask");
  assert.equal(star.result(), "edit");
  assert.equal(star.sizeThreshold().toString(), "512KB");
  assert.equal(star.cancellationResponse(), "Cancelled.");
  assert.equal(star.inlineResults(), "full");
  assert.equal(star.resultsFileLink(), "off");
  assert.equal(star.timeoutMs(), 30_000);

  const cargo = config.tool("cargo_test");
  assert.deepEqual(cargo.source(), { kind: "local", text: "local" });
  assert.deepEqual(cargo.command(), ["cargo", "test"]);
  assert.deepEqual(cargo.passEnv(), ["CARGO_HOME", "RUST*"]);
  assert.deepEqual(star.passEnv(), []);
  assert.equal(cargo.timeoutMs(), 2500);
  assert.equal(cargo.sizeThreshold().bytes?.bytes, 2048);
  assert.equal(cargo.description(), "Runs the tests.");
  assert.equal(cargo.run(), "ask");

  const search = config.tool("search");
  assert.deepEqual(search.source(), {
    kind: "mcp",
    text: "mcp.github.search_code",
    server: "github",
    tool: "search_code",
  });
  assert.equal(search.sizeThreshold().isUnlimited, true);
  assert.equal(search.inlineResults(), 0);

  assert.deepEqual(config.toolNames(), ["cargo_test", "search"]);
  assert.deepEqual(config.mcpProviders(), [
    {
      name: "github",
      type: "stdio",
      command: "github-mcp-server",
      arguments: ["stdio"],
      environment: { GITHUB_TOKEN: "t" },
      passEnv: ["GH_*"],
      startupTimeoutMs: 30_000,
      protocol: "auto",
      origins: {
        type: "full.toml",
        command: "full.toml",
        arguments: "full.toml",
        pass_env: "full.toml",
        "environment.GITHUB_TOKEN": "full.toml",
      },
    },
    {
      name: "remote",
      type: "http",
      url: "https://example.test/mcp",
      headers: {},
      startupTimeoutMs: 2500,
      protocol: "auto",
      origins: { type: "full.toml", url: "full.toml", startup_timeout: "full.toml" },
    },
  ]);
  assert.equal(config.mcpProvider("remote")?.type, "http");
  assert.equal(config.mcpProvider("nope"), undefined);
});

Deno.test("parseConfig() names file, line, key, value and what is accepted", () => {
  assert.deepEqual(problems(`[conversation.tools.'*']\nrun = "sometimes"\n`), [
    `c.toml:2: conversation.tools.'*'.run = "sometimes" is not valid (expected one of: ask, unattended, edit, skip)`,
  ]);
});

Deno.test("parseConfig() collects every problem of a document, in document order", () => {
  const found = problems(`
[conversation.tools.'*']
result = 3
size_threshold = "1TB"

[conversation.tools.cargo_test]
size_treshold = "1MB"
size_threshold = "512"
command = "cargo test"
timeout = 0
style.inline_results = "some"
`);
  assert.deepEqual(found, [
    "c.toml:3: conversation.tools.'*'.result = 3 has the wrong type (expected a string, one of: unattended, ask, edit, skip)",
    "c.toml:4: conversation.tools.'*'.size_threshold = \"1TB\": invalid size `1TB`: unknown unit `tb` (expected B, KB, MB, or GB)",
    "c.toml:7: unknown key conversation.tools.cargo_test.size_treshold (expected one of: source, command, pass_env, timeout, run, result, size_threshold, truncation, truncation_split, spill, cancellation_response, style, description)",
    'c.toml:8: conversation.tools.cargo_test.size_threshold = "512" is below the 1KB minimum: use "unlimited" for no limit, or result = "skip" for no result at all',
    'c.toml:9: conversation.tools.cargo_test.command = "cargo test" has the wrong type (expected an array of strings, e.g. ["cargo", "test"])',
    "c.toml:10: conversation.tools.cargo_test.timeout = 0 is not valid (expected a positive number of seconds, e.g. 120)",
    'c.toml:11: conversation.tools.cargo_test.style.inline_results = "some" is not valid (expected "off", "full", or a number of lines such as 10)',
  ]);
});

Deno.test("parseConfig() rejects thresholds below 1KB however they are spelled, including 0", () => {
  for (const value of ["0", '"0"', "1023", '"1023B"', '"0.5KB"']) {
    const [problem] = problems(`[conversation.tools.x]\nsize_threshold = ${value}\n`);
    assert.ok(problem !== undefined);
    if (value === '"0.5KB"') {
      assert.match(problem, /invalid size/);
    } else {
      assert.match(problem, /is below the 1KB minimum: use "unlimited" for no limit/, value);
    }
  }
  assert.equal(
    parseConfig(`[conversation.tools.x]\nsize_threshold = 1024\n`).tool("x")
      .sizeThreshold().toString(),
    "1KB",
  );
});

Deno.test("parseConfig() rejects wrong types of thresholds and negative byte counts", () => {
  assert.deepEqual(problems(`[conversation.tools.x]\nsize_threshold = true\n`), [
    'c.toml:2: conversation.tools.x.size_threshold = true has the wrong type (expected a size such as "256KB" or "1MB", a byte count, or "unlimited")',
  ]);
  assert.deepEqual(problems(`[conversation.tools.x]\nsize_threshold = 1.5\n`), [
    'c.toml:2: conversation.tools.x.size_threshold = 1.5 has the wrong type (expected a size such as "256KB" or "1MB", a byte count, or "unlimited")',
  ]);
  assert.deepEqual(problems(`[conversation.tools.x]\nsize_threshold = -1\n`), [
    "c.toml:2: conversation.tools.x.size_threshold = -1: size must be non-negative, got `-1`",
  ]);
});

Deno.test("parseConfig() reports unknown keys at every level", () => {
  assert.deepEqual(
    problems(`
colour = 1
[conversation]
history = 2
[conversation.tools.x]
style = { colour = "red" }
[providers.lsp]
[providers.mcp.s]
type = "stdio"
command = "s"
cwd = "/"
`),
    [
      "c.toml:2: unknown key colour (expected one of: conversation, assistant, providers, serve, store)",
      "c.toml:4: unknown key conversation.history (expected one of: tools)",
      "c.toml:6: unknown key conversation.tools.x.style.colour (expected one of: inline_results, results_file_link)",
      "c.toml:7: unknown key providers.lsp (expected one of: mcp, llm)",
      "c.toml:11: unknown key providers.mcp.s.cwd (expected one of: type, command, arguments, environment, pass_env, url, headers, startup_timeout, protocol)",
    ],
  );
});

Deno.test("parseConfig() rejects tables of the wrong type", () => {
  assert.deepEqual(problems(`conversation = 1\n`), [
    "c.toml:1: conversation = 1 has the wrong type (expected a table, e.g. [conversation.tools.'*'])",
  ]);
  assert.deepEqual(problems(`[conversation]\ntools = []\n`), [
    "c.toml:2: conversation.tools = [] has the wrong type (expected a table of tools, e.g. [conversation.tools.'*'])",
  ]);
  assert.deepEqual(problems(`[conversation.tools]\nx = "local"\n`), [
    'c.toml:2: conversation.tools.x = "local" has the wrong type (expected a table of tool settings, e.g. [conversation.tools.x])',
  ]);
  assert.deepEqual(problems(`[conversation.tools.x]\nstyle = "dark"\n`), [
    'c.toml:2: conversation.tools.x.style = "dark" has the wrong type (expected a table with inline_results and/or results_file_link)',
  ]);
});

Deno.test("parseConfig() reports TOML syntax errors with line and column", () => {
  assert.deepEqual(problems(`[conversation.tools.x]\nrun = "ask\n`), [
    "c.toml:2:11: TOML syntax error: control characters are not allowed in strings",
  ]);
});

Deno.test("parseConfig() keeps source, command and description off '*'", () => {
  assert.deepEqual(
    problems(`[conversation.tools.'*']\nsource = "local"\ncommand = ["x"]\ndescription = "d"\n`),
    [
      "c.toml:2: conversation.tools.'*'.source cannot be set for all tools (set source on a named tool)",
      "c.toml:3: conversation.tools.'*'.command cannot be set for all tools (set command on a named tool)",
      "c.toml:4: conversation.tools.'*'.description cannot be set for all tools (set description on a named tool)",
    ],
  );
});

Deno.test("parseConfig() checks that tool sources and commands fit together", () => {
  assert.deepEqual(
    problems(`
[conversation.tools.a]
source = "local"
[conversation.tools.b]
command = ["b"]
[conversation.tools.c]
source = "builtin"
command = ["c"]
[conversation.tools.d]
source = "remote"
[conversation.tools.e]
source = "local"
command = []
`),
    [
      'c.toml:10: conversation.tools.d.source = "remote" is not valid (expected one of: builtin, local, mcp.<server>, mcp.<server>.<tool>)',
      'c.toml:13: conversation.tools.e.command = [] is not valid (expected a non-empty array of strings starting with the program, e.g. ["cargo", "test"])',
      'c.toml:3: conversation.tools.a.source = "local" needs command (an array of strings, e.g. ["cargo", "test"])',
      'c.toml:5: conversation.tools.b.command is only used with source = "local" (source is not set)',
      'c.toml:8: conversation.tools.c.command is only used with source = "local" (source is "builtin")',
    ],
  );
});

Deno.test("parseConfig() rejects a source naming an undefined MCP server", () => {
  assert.deepEqual(problems(`[conversation.tools.x]\nsource = "mcp.github"\n`), [
    'c.toml:2: conversation.tools.x.source = "mcp.github" names an undefined MCP server github (no providers.mcp servers are defined; add a [providers.mcp.github] table)',
  ]);
  assert.deepEqual(
    problems(
      `[conversation.tools.x]\nsource = "mcp.gh.search"\n[providers.mcp.github]\ntype = "http"\nurl = "http://127.0.0.1:1/mcp"\n`,
    ),
    [
      'c.toml:2: conversation.tools.x.source = "mcp.gh.search" names an undefined MCP server gh (defined: github)',
    ],
  );
});

Deno.test("parseConfig() checks that MCP providers have what their type needs", () => {
  assert.deepEqual(
    problems(`
[providers.mcp.a]
command = "a"
[providers.mcp.b]
type = "stdio"
url = "http://127.0.0.1/"
[providers.mcp.c]
type = "http"
command = "c"
arguments = ["x"]
environment = { K = "v" }
[providers.mcp.d]
type = "websocket"
[providers.mcp.e]
type = "http"
url = "ftp://example.test/"
environment = { K = 1 }
[providers.mcp.f]
type = "stdio"
command = ["f", "stdio"]
`),
    [
      'c.toml:13: providers.mcp.d.type = "websocket" is not valid (expected one of: stdio, http)',
      'c.toml:16: providers.mcp.e.url = "ftp://example.test/" is not valid (expected an http:// or https:// URL, e.g. "http://127.0.0.1:8080/mcp")',
      "c.toml:17: providers.mcp.e.environment.K = 1 has the wrong type (expected a string)",
      'c.toml:20: providers.mcp.f.command = ["f", "stdio"] has the wrong type (expected a string naming the program, e.g. "github-mcp-server"; put its arguments in arguments = [...])',
      "c.toml:2: providers.mcp.a.type is missing (expected one of: stdio, http)",
      'c.toml:5: providers.mcp.b.type = "stdio" needs command (the program to run, e.g. "github-mcp-server")',
      'c.toml:6: providers.mcp.b.url is only used with type = "http" (type is "stdio")',
      'c.toml:8: providers.mcp.c.type = "http" needs url (e.g. "http://127.0.0.1:8080/mcp")',
      'c.toml:9: providers.mcp.c.command is only used with type = "stdio" (type is "http")',
      'c.toml:10: providers.mcp.c.arguments is only used with type = "stdio" (type is "http")',
      'c.toml:11: providers.mcp.c.environment is only used with type = "stdio" (type is "http")',
      // e's url was rejected above: no second message about a missing url.
    ],
  );
});

Deno.test("parseConfig() rejects server names that source could not address", () => {
  assert.deepEqual(problems(`[providers.mcp.'a.b']\ntype = "stdio"\ncommand = "x"\n`), [
    'c.toml:1: MCP server name "a.b" cannot contain "." (source = "mcp.<server>.<tool>" could not tell the server from the tool)',
  ]);
});

Deno.test("parseConfig() shortens long values in messages", () => {
  const [problem] = problems(`[conversation.tools.x]\nrun = "${"a".repeat(500)}"\n`);
  assert.ok(problem !== undefined);
  assert.ok(problem.length < 250, problem);
  assert.match(problem, /run = "a+…/);
});

Deno.test("parseConfig() omits the line when the key is not written on one", () => {
  // Inline tables: the key is on its parent's line.
  assert.deepEqual(problems(`conversation = { tools = { x = { run = "no" } } }\n`), [
    'c.toml:1: conversation.tools.x.run = "no" is not valid (expected one of: ask, unattended, edit, skip)',
  ]);
});
