import assert from "node:assert/strict";
import { join } from "node:path";
import { SpillwayError } from "../errors/spillway_error.ts";
import { loadConfig } from "./load_config.ts";
import { parseConfig } from "./parse_config.ts";

const ceilings = (text: string) =>
  [...parseConfig(text, "c.toml").serve().clientCeilings].map((
    [name, { value, at }],
  ) => [name, value.bytes, at]);

function problems(text: string): string[] {
  try {
    parseConfig(text, "c.toml");
  } catch (error) {
    assert.ok(error instanceof SpillwayError && error.code === "config_invalid", String(error));
    return error.details["errors"] as string[];
  }
  assert.fail("expected parseConfig() to reject");
}

Deno.test("[serve.client_ceilings] maps each announced client name to its ceiling", () => {
  assert.deepEqual(
    ceilings(`[serve.client_ceilings]\n"codex-mcp-client" = "64KB"\nmy-agent = 20000\n`),
    [["codex-mcp-client", 65_536, "c.toml:2"], ["my-agent", 20_000, "c.toml:3"]],
  );
  assert.deepEqual(ceilings(""), [], "none by default");
});

Deno.test("[serve.client_ceilings]: each bad entry is named, with what would be accepted", () => {
  assert.deepEqual(
    problems(`[serve.client_ceilings]\na = "512"\nb = "12XB"\nc = true\nd = "2KB"\n`),
    [
      'c.toml:2: serve.client_ceilings.a = "512" is below the 1KB minimum: leave it out for ' +
      "the ceiling spillway knows for that client, if any",
      'c.toml:3: serve.client_ceilings.b = "12XB": invalid size `12XB`: unknown unit `xb` ' +
      "(expected B, KB, MB, or GB)",
      'c.toml:4: serve.client_ceilings.c = true has the wrong type (expected a size such as "500KB" ' +
      'or "1MB", or a byte count)',
    ],
  );
  assert.deepEqual(problems(`[serve]\nclient_ceilings = "64KB"\n`), [
    'c.toml:2: serve.client_ceilings = "64KB" has the wrong type (expected a table of client ' +
    'names, e.g. "codex-mcp-client" = "64KB")',
  ]);
});

Deno.test("[serve.client_ceilings] layers entry by entry; --cfg sets one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_serve_config_" });
  try {
    await Deno.writeTextFile(
      join(dir, "a.toml"),
      `[serve.client_ceilings]\n"codex-mcp-client" = "64KB"\n"gemini-cli-mcp-client" = "30KB"\n`,
    );
    await Deno.writeTextFile(join(dir, "b.toml"), `[serve.client_ceilings]\nmine = "8KB"\n`);
    const config = await loadConfig({
      env: { XDG_CONFIG_HOME: join(dir, "xdg"), HOME: join(dir, "home") },
      cwd: dir,
      workspace: "ws",
      configFiles: ["a.toml", "b.toml"],
      cfg: ["serve.client_ceilings.gemini-cli-mcp-client=32KB"],
    });
    const seen = [...config.serve().clientCeilings].map(([name, { value, origin }]) => [
      name,
      value.toString(),
      origin,
    ]);
    assert.deepEqual(seen, [
      ["codex-mcp-client", "64KB", "a.toml"],
      ["gemini-cli-mcp-client", "32KB", "--cfg"],
      ["mine", "8KB", "b.toml"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[serve.tokens.NAME] names the variable of each client's token, layer by layer", async () => {
  const tokens = (config: { serve(): { tokens: ReadonlyMap<string, { value: string }> } }) =>
    [...config.serve().tokens].map(([name, env]) => [name, env.value]);
  assert.deepEqual(tokens(parseConfig("")), [], "none by default");
  const dir = await Deno.makeTempDir({ prefix: "spillway_serve_tokens_" });
  try {
    await Deno.writeTextFile(
      join(dir, "a.toml"),
      `[serve.tokens.alice]\nenv = "ALICE_TOKEN"\n[serve.tokens.bob]\nenv = "BOB_TOKEN"\n`,
    );
    await Deno.writeTextFile(join(dir, "b.toml"), `[serve.tokens.bob]\nenv = "BOBS_OTHER"\n`);
    const config = await loadConfig({
      env: { XDG_CONFIG_HOME: join(dir, "xdg"), HOME: join(dir, "home") },
      cwd: dir,
      workspace: "ws",
      configFiles: ["a.toml", "b.toml"],
      cfg: ["serve.tokens.carol.env=CAROL_TOKEN"],
    });
    assert.deepEqual(tokens(config), [
      ["alice", "ALICE_TOKEN"],
      ["bob", "BOBS_OTHER"],
      ["carol", "CAROL_TOKEN"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[serve] session_idle_timeout and max_sessions: defaults, durations, seconds", () => {
  const serve = (text: string) => parseConfig(text, "c.toml").serve();
  const defaults = serve("");
  assert.equal(defaults.sessionIdleTimeout.value.ms, 30 * 60_000);
  assert.equal(defaults.sessionIdleTimeout.origin, "default");
  assert.equal(defaults.maxSessions.value, 1000);
  const set = serve(`[serve]\nsession_idle_timeout = "90s"\nmax_sessions = 20\n`);
  assert.equal(set.sessionIdleTimeout.value.ms, 90_000);
  assert.equal(set.sessionIdleTimeout.at, "c.toml:2");
  assert.equal(set.maxSessions.value, 20);
  assert.equal(
    serve(`[serve]\nsession_idle_timeout = 7200\n`).sessionIdleTimeout.value.ms,
    7_200_000,
  );
  assert.deepEqual(
    problems(`[serve]\nsession_idle_timeout = true\nmax_sessions = 2.5\n`),
    [
      'c.toml:2: serve.session_idle_timeout = true has the wrong type (expected a duration such as "30m" or "2h", or a number of seconds)',
      "c.toml:3: serve.max_sessions = 2.5 is not valid (expected a whole number of sessions, at least 1, e.g. 1000)",
    ],
  );
});
