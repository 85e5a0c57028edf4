/**
 * spillway's secrets never reach the processes it starts. The serve tokens
 * (the default client's, and a `[serve.tokens.NAME]` client's) and the model API keys (and any other variable of spillway's own
 * environment) are absent from the environment of a local tool and of a
 * stdio upstream server, under `serve --http`, `serve --stdio` and `query`
 * alike; a variable named in the tool's or the server's `pass_env` is
 * there, secrets included, and so is what `environment` sets. Each tool
 * answers with the environment it got: a local `env`, and an upstream
 * server that returns its own (`tests/fixtures/gateway/env_upstream.ts`).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { query, responsesOf, workspaceWith } from "./_cli.ts";
import { serveStdio } from "./_serve_stdio.ts";
import { spawnHttpServe, textOf } from "./gateway_fixtures.ts";
import { Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";

const ENV_UPSTREAM = new URL("./fixtures/gateway/env_upstream.ts", import.meta.url).pathname;

const TOKEN = "serve-token-0123456789abcdef";

/** What spillway runs with: its secrets, one private variable of the user's, one to pass by name. */
const SPILLWAY_ENV = {
  SPILLWAY_SERVE_TOKEN: TOKEN,
  ALICE_TOKEN: "alice-token-0123456789abcdef",
  OPENAI_API_KEY: "sk-openai-secret-value",
  MY_ANTHROPIC_KEY: "sk-ant-secret-value",
  USERS_OWN_SECRET: "aws-like-secret-value",
  PASSED_ONE: "passed-by-name",
};

const upstream = (tool: string) =>
  `type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify(["run", "--quiet", "--allow-env", ENV_UPSTREAM, tool])}`;

const CONFIG = `
[serve.tokens.alice]
env = "ALICE_TOKEN"

[providers.llm.anthropic]
api_key_env = "MY_ANTHROPIC_KEY"

[conversation.tools.local_env]
source = "local"
command = ["sh", "-c", "env"]

[conversation.tools.local_env_named]
source = "local"
command = ["sh", "-c", "env"]
pass_env = ["SPILLWAY_SERVE_TOKEN", "MY_ANTHROPIC_KEY", "PASSED_*"]

[providers.mcp.plain]
${upstream("upstream_env")}

[providers.mcp.named]
${upstream("upstream_env_named")}
pass_env = ["OPENAI_API_KEY", "PASSED_ONE"]
environment = { SET_BY_CONFIG = "set" }
`;

const TOOLS = ["local_env", "local_env_named", "upstream_env", "upstream_env_named"] as const;
type ToolName = typeof TOOLS[number];

/** The variables a tool's answer shows: `env`'s lines, or the upstream's JSON. */
function variables(tool: ToolName, text: string): Record<string, string> {
  if (tool.startsWith("upstream")) return JSON.parse(text);
  return Object.fromEntries(
    text.split("\n").filter((line) => line.includes("=")).map((line) => {
      const at = line.indexOf("=");
      return [line.slice(0, at), line.slice(at + 1)];
    }),
  );
}

/** Which of spillway's variables each tool must see (the rest of SPILLWAY_ENV it must not). */
const EXPECTED: Readonly<Record<ToolName, readonly (keyof typeof SPILLWAY_ENV)[]>> = {
  local_env: [],
  local_env_named: ["SPILLWAY_SERVE_TOKEN", "MY_ANTHROPIC_KEY", "PASSED_ONE"],
  upstream_env: [],
  upstream_env_named: ["OPENAI_API_KEY", "PASSED_ONE"],
};

/** Checks what each tool saw: its named variables with their values, no other of spillway's. */
function assertSeen(answers: ReadonlyMap<ToolName, string>): void {
  assert.deepEqual([...answers.keys()].sort(), [...TOOLS].sort());
  for (const [tool, text] of answers) {
    const seen = variables(tool, text);
    const expected = EXPECTED[tool];
    for (const [name, value] of Object.entries(SPILLWAY_ENV)) {
      if (expected.includes(name as keyof typeof SPILLWAY_ENV)) {
        assert.equal(seen[name], value, `${tool} gets ${name}, named in its pass_env`);
      } else {
        assert.equal(seen[name], undefined, `${tool} must not get ${name}`);
        assert.ok(!text.includes(value), `${tool}'s answer shows the value of ${name}`);
      }
    }
    // What every program needs still comes through.
    assert.equal(seen["PATH"], Deno.env.get("PATH"), `${tool} gets PATH`);
    assert.equal(seen["HOME"], Deno.env.get("HOME"), `${tool} gets HOME`);
  }
  assert.equal(
    variables("local_env", answers.get("local_env") ?? "")["SPILLWAY_TOOL_NAME"],
    "local_env",
  );
  assert.equal(
    variables("upstream_env_named", answers.get("upstream_env_named") ?? "")["SET_BY_CONFIG"],
    "set",
  );
}

Deno.test("serve --http: the token and the API keys reach no tool unless its pass_env names them", async () => {
  await using serve = await spawnHttpServe([], { config: CONFIG, env: SPILLWAY_ENV });
  const client = new Client({ name: "secrets-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(serve.url as URL, {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  try {
    const answers = new Map<ToolName, string>();
    for (const tool of TOOLS) {
      answers.set(tool, textOf(await client.callTool({ name: tool, arguments: {} })));
    }
    assertSeen(answers);
  } finally {
    await client.close();
  }
});

Deno.test("serve --stdio: the token and the API keys reach no tool unless its pass_env names them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_secrets_" });
  try {
    const config = join(dir, "config.toml");
    await Deno.writeTextFile(config, CONFIG);
    const { client } = await serveStdio(dir, config, SPILLWAY_ENV);
    try {
      const answers = new Map<ToolName, string>();
      for (const tool of TOOLS) {
        answers.set(tool, textOf(await client.callTool({ name: tool, arguments: {} })));
      }
      assertSeen(answers);
    } finally {
      await client.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("query: the token and the API keys reach no tool unless its pass_env names them", async () => {
  const calls = TOOLS.map((tool, i) => `{ id = "call_${i}", name = "${tool}", arguments = {} }`);
  const script = `[[cycles]]\ntool_calls = [\n  ${
    calls.join(",\n  ")
  },\n]\n\n[[cycles]]\ntext = "done"\n`;
  const workspace = await workspaceWith(CONFIG, { "script.toml": script });
  try {
    const run = await query(workspace, ["--quiet", "--script", "script.toml", "go"], {
      env: SPILLWAY_ENV,
    });
    assert.equal(run.code, 0, run.stderr);
    const conversations = [...Deno.readDirSync(join(workspace, "conversations"))];
    assert.equal(conversations.length, 1);
    const responses = await responsesOf(workspace, conversations[0]?.name ?? "");
    assertSeen(new Map(TOOLS.map((tool, i) => [tool, responses.get(`call_${i}`)?.content ?? ""])));
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});
