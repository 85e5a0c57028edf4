/**
 * Golden tests for what `spillway serve --http` says about its bearer
 * token at start: a token no client could send (whitespace, a line break,
 * a control character, a character outside ASCII) stops it, naming the
 * variable and the character, never the token; a short one is served with
 * a warning. Each transcript is in `tests/fixtures/serve_token/`.
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
const REFUSED: readonly { name: string; variable: string; token: string; config?: string }[] = [
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
];

for (const { name, variable, token, config } of REFUSED) {
  Deno.test(`serve --http refuses a token with ${name.replace("_", " ")}, naming ${variable}, never the token`, async () => {
    const args = [
      "serve",
      "--http",
      "127.0.0.1:0",
      ...(config === undefined ? [] : ["--config", config]),
    ];
    const io = captureCommandIo({ env: { [variable]: token }, cwd: FIXTURES });
    const code = await main(args, io);
    assert.equal(code, 1);
    assert.equal(io.out(), "");
    for (const part of token.split(/[^\w-]+/).filter((piece) => piece.length >= 4)) {
      assert.ok(!io.err().includes(part), `the message shows part of the token: ${part}`);
    }
    await golden(
      name,
      `$ ${variable}=… spillway ${args.join(" ")}\nexit code: ${code}\n--- stderr\n${io.err()}`,
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
