/**
 * End to end through the command line: `deno run … src/cli.ts query` as a
 * subprocess, with a scripted model and the scripted upstream server
 * (tests/fixtures/upstream/scripted_server.ts) misbehaving the way real
 * servers do: a call it never answers, a reply that is not JSON, an
 * `initialize` it never answers. Every call ends, and what the person sees
 * and what the conversation records say so in plain words.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliRun, conversationIdOf, eventsOf, query, REPO, workspaceWith } from "./_cli.ts";
import { isAlive } from "./_process_probe.ts";

const SERVER = join(REPO, "tests", "fixtures", "upstream", "scripted_server.ts");

interface Recorded {
  readonly content: string;
  readonly is_error: boolean;
}

/** `[providers.mcp.<name>]` running the scripted server with `flags`. */
function server(name: string, flags: readonly string[], extra = ""): string {
  const args = ["run", "--quiet", SERVER, ...flags];
  return `[providers.mcp.${name}]\ntype = "stdio"\ncommand = ${
    JSON.stringify(Deno.execPath())
  }\narguments = ${JSON.stringify(args)}\n${extra}`;
}

/** `spillway query --script script.toml …args` in `workspace`. */
function run(workspace: string, ...args: string[]): Promise<CliRun> {
  return query(workspace, ["--script", join(workspace, "script.toml"), ...args]);
}

/** The recorded responses of the run's conversation, by call id. */
async function recorded(workspace: string, run: CliRun): Promise<Map<string, Recorded>> {
  const responses = new Map<string, Recorded>();
  for (const event of await eventsOf(workspace, conversationIdOf(run))) {
    if (event.type !== "tool_call_response") continue;
    const { id, content, is_error } = event as unknown as Recorded & { readonly id: string };
    responses.set(id, { content, is_error });
  }
  return responses;
}

Deno.test("query: a call the upstream server never answers ends at its timeout; the turn goes on", async () => {
  const workspace = await workspaceWith(
    server("flaky", ["--quiet"]) + "\n[conversation.tools.wait]\ntimeout = 0.5\n",
    {
      "script.toml": `[[cycles]]
text = "Waiting on the server."
tool_calls = [
  { id = "call_1", name = "wait", arguments = {} },
  { id = "call_2", name = "echo", arguments = { text = "the sibling answered" } },
]

[[cycles]]
text = "The wait timed out; carrying on."
`,
    },
  );
  try {
    const result = await run(workspace, "Wait for it");
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "");
    assert.match(result.stdout, /\nassistant: The wait timed out; carrying on\.\n/);
    assert.match(result.stdout, /Conversation \S+ \(2 model requests, 0 cut responses\)/);
    assert.deepEqual(
      [...await recorded(workspace, result)],
      [
        ["call_1", { content: "timed out after 0.5s", is_error: true }],
        ["call_2", { content: "the sibling answered", is_error: false }],
      ],
    );
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("query -v: a reply that is not JSON is logged, and the call it answers fails", async () => {
  const workspace = await workspaceWith(
    server("flaky", ["--quiet"]),
    {
      "script.toml": `[[cycles]]
text = "Asking."
tool_calls = [{ id = "call_1", name = "garbage", arguments = {} }]

[[cycles]]
text = "The server answered garbage."
`,
    },
  );
  try {
    const result = await run(workspace, "-v", "Ask it");
    assert.equal(result.code, 0, result.stderr);
    // Requests so far: initialize (0), tools/list (1), this tools/call (2).
    const line = '"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":2,\\"result\\":{\\"content\\":[{\\"type\\":"';
    const logged = result.stderr.split("\n").filter((l) => l.includes("spillway·upstream"));
    assert.equal(logged.length, 1, result.stderr);
    assert.match(logged[0]!, /^\d\d:\d\d:\d\d\.\d{3} \[WRN\] spillway·upstream: /);
    assert.ok(
      logged[0]!.endsWith(
        `mcp.flaky: the server wrote a line that is not JSON: ${line}; ` +
          "it answers tools/call `garbage`, which fails",
      ),
      logged[0],
    );
    assert.match(result.stdout, /\nassistant: The server answered garbage\.\n/);
    assert.deepEqual(
      await recorded(workspace, result),
      new Map([["call_1", {
        content: "tool call failed: mcp.flaky returned a malformed result for `garbage`: " +
          `a line that is not JSON: ${line}`,
        is_error: true,
      }]]),
    );
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("query: a server that never answers initialize is a clear start-up error, and is stopped", async () => {
  const workspace = await workspaceWith(
    server("silent", ["--silent-initialize", "--linger"], "startup_timeout = 1\n"),
    {
      "script.toml": `[[cycles]]\ntext = "Never reached."\n`,
    },
  );
  try {
    const result = await run(workspace, "Start");
    assert.equal(result.code, 1);
    assert.equal(result.stdout, "");
    // The server's own stderr comes first: it announces the request it ignores, and its pid.
    const announced = /^initialize 0 (\d+)\n/.exec(result.stderr);
    assert.ok(announced, result.stderr);
    assert.equal(
      result.stderr.slice(announced[0].length),
      "spillway query: cannot start upstream server mcp.silent: it did not answer initialize " +
        "within 1 s\n",
    );
    assert.equal(isAlive(Number(announced[1])), false, "the server was left running");
    const entries = [];
    for await (const entry of Deno.readDir(workspace)) entries.push(entry.name);
    assert.deepEqual(entries.sort(), ["config.toml", "script.toml"], "no conversation started");
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("query: a server that exits mid-call loses that call; the next starts it again, said once", async () => {
  const workspace = await workspaceWith(
    server("flaky", ["--quiet"]),
    {
      "script.toml": `[[cycles]]
text = "Crashing it."
tool_calls = [{ id = "call_1", name = "crash", arguments = {} }]

[[cycles]]
text = "Trying again."
tool_calls = [{ id = "call_2", name = "echo", arguments = { text = "back" } }]

[[cycles]]
text = "Once more."
tool_calls = [{ id = "call_3", name = "echo", arguments = { text = "still back" } }]

[[cycles]]
text = "It recovered."
`,
    },
  );
  try {
    const result = await run(workspace, "Crash it");
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      result.stderr,
      "warning: upstream server mcp.flaky exited (code 3); starting it again\n",
    );
    assert.deepEqual(
      [...await recorded(workspace, result)],
      [
        ["call_1", {
          content: "tool call lost: upstream server mcp.flaky exited (code 3) during the call",
          is_error: true,
        }],
        ["call_2", { content: "back", is_error: false }],
        ["call_3", { content: "still back", is_error: false }],
      ],
    );
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});
