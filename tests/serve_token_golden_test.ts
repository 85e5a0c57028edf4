/**
 * Golden tests for what `spillway serve --http` says about its bearer
 * tokens at start: a token no client could send (whitespace, a line break,
 * a control character, a character outside ASCII) stops it, naming the
 * variable and the character, never the token; a short one is served with
 * a warning. Every client's token (`[serve.tokens.NAME]`) gets the same
 * checks in the same words; a client's variable that is unset stops it, and
 * so do two clients holding one token. Each transcript is in
 * `tests/fixtures/serve_token/`.
 *
 * Regenerate after an intended change with
 * `UPDATE_GOLDEN=1 deno test -A tests/serve_token_golden_test.ts`, then review the diff.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../src/cli.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";
import { spawnHttpServe } from "./gateway_fixtures.ts";

const FIXTURES = fileURLToPath(new URL("./fixtures/serve_token/", import.meta.url));
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

async function golden(name: string, actual: string): Promise<void> {
  const path = join(FIXTURES, `${name}.expected.txt`);
  if (UPDATE) await Deno.writeTextFile(path, actual);
  assert.equal(actual, await Deno.readTextFile(path));
}

/** Tokens that can never authenticate, by the variable they are in. */
const REFUSED: readonly {
  name: string;
  variable: string;
  token: string;
  config?: string;
  /** More of spillway's environment. */
  env?: Record<string, string>;
}[] = [
  { name: "space", variable: "SPILLWAY_SERVE_TOKEN", token: "correct horse battery staple" },
  { name: "line_break", variable: "SPILLWAY_SERVE_TOKEN", token: "0123456789abcdef0123\r\n" },
  { name: "control", variable: "SPILLWAY_SERVE_TOKEN", token: "\x1b]0;pwned\x07-0123456789abcdef" },
  { name: "non_ascii", variable: "SPILLWAY_SERVE_TOKEN", token: "jeton-sécret-0123456789" },
  {
    name: "named_variable",
    variable: "MY_GATEWAY_TOKEN",
    token: "tab\tseparated-0123456789",
    config: "token_env.toml",
  },
  {
    name: "client_space",
    variable: "ALICE_TOKEN",
    token: "zq has spaces-0123456789",
    config: "tokens.toml",
    env: { BOB_TOKEN: "bob-0123456789abcdef" },
  },
  {
    name: "client_shares_a_token",
    variable: "BOB_TOKEN",
    token: "one-token-for-two-0123456789",
    config: "tokens.toml",
    env: { SPILLWAY_SERVE_TOKEN: "one-token-for-two-0123456789", ALICE_TOKEN: "alice-0123456789" },
  },
];

for (const { name, variable, token, config, env } of REFUSED) {
  Deno.test(`serve --http refuses a token with ${name.replace("_", " ")}, naming ${variable}, never the token`, async () => {
    const args = [
      "serve",
      "--http",
      "127.0.0.1:0",
      ...(config === undefined ? [] : ["--config", config]),
    ];
    const io = captureCommandIo({ env: { ...env, [variable]: token }, cwd: FIXTURES });
    const code = await main(args, io);
    assert.equal(code, 1);
    assert.equal(io.out(), "");
    for (const part of token.split(/[^\w-]+/).filter((piece) => piece.length >= 4)) {
      assert.ok(!io.err().includes(part), `the message shows part of the token: ${part}`);
    }
    const shown = Object.keys({ ...env, [variable]: token }).map((key) => `${key}=… `).join("");
    await golden(
      name,
      `$ ${shown}spillway ${args.join(" ")}\nexit code: ${code}\n--- stderr\n${io.err()}`,
    );
  });
}

Deno.test("serve --http warns about a token under 16 characters, and serves", async () => {
  await using serve = await spawnHttpServe([], { env: { SPILLWAY_SERVE_TOKEN: "short-one" } });
  const [line] = await serve.stderr.waitFor(/^warning: .*token.*$/);
  await golden("short", `${line}\n`);
  assert.ok(!serve.stderr.text.includes("short-one"), "the token is not printed");
  const answer = await fetch(serve.url as URL, {
    method: "POST",
    headers: {
      authorization: "Bearer short-one",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }),
  });
  await answer.body?.cancel();
  assert.equal(answer.status, 200, "a short token still authenticates");
});

Deno.test("serve --http refuses to start when a client's token variable is unset, naming it", async () => {
  const args = ["serve", "--http", "127.0.0.1:0", "--config", "tokens.toml"];
  const io = captureCommandIo({ env: { ALICE_TOKEN: "alice-0123456789ab" }, cwd: FIXTURES });
  const code = await main(args, io);
  assert.equal(code, 1);
  await golden(
    "client_unset",
    `$ ALICE_TOKEN=… spillway ${args.join(" ")}\nexit code: ${code}\n--- stderr\n${io.err()}`,
  );
});

Deno.test("serve --http warns about a client's token under 16 characters in the same words", async () => {
  await using serve = await spawnHttpServe([], {
    config: await Deno.readTextFile(join(FIXTURES, "tokens.toml")),
    env: {
      SPILLWAY_SERVE_TOKEN: "default-0123456789",
      ALICE_TOKEN: "alice-0123456789",
      BOB_TOKEN: "x7q!",
    },
  });
  const [line] = await serve.stderr.waitFor(/^warning: .*token.*$/);
  // The config's path is the child's temporary folder.
  await golden(
    "client_short",
    `${line.replace(/^warning: \S*config\.toml/, "warning: config.toml")}\n`,
  );
  assert.ok(!serve.stderr.text.includes("x7q!"), "the token is not printed");
});
