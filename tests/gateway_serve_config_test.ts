/**
 * `[serve]` in the configuration, as `spillway serve` reads it: the client
 * ceiling (the flag wins), the variable holding the bearer token, and the
 * web origins allowed besides loopback ones.
 */

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";
import { CLI, postInitialize, spawnHttpServe, upstreamConfig } from "./gateway_fixtures.ts";
import { join } from "./_paths.ts";
import { finished, spawnSpillway, workspaceWith } from "./_cli.ts";

const SERVE = `[serve]
client_ceiling = "20KB"
token_env = "MY_GATEWAY_TOKEN"
allowed_origins = ["https://app.example.com"]
`;

async function listHints(url: URL, token: string): Promise<Map<string, unknown>> {
  const client = new Client({ name: "config-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    const { tools } = await client.listTools();
    return new Map(tools.map((tool) => [tool.name, tool._meta?.["anthropic/maxResultSizeChars"]]));
  } finally {
    await client.close();
  }
}

/** The status of an initialize POST with `headers`. */
async function status(url: URL, headers: Record<string, string>): Promise<number> {
  const response = await postInitialize(url, headers);
  await response.body?.cancel();
  return response.status;
}

Deno.test("serve reads [serve]: the ceiling, the token's variable, the allowed origins", async () => {
  await using serve = await spawnHttpServe([], {
    config: upstreamConfig(SERVE),
    env: { MY_GATEWAY_TOKEN: "from-the-environment" },
  });
  const url = serve.url as URL;
  const hints = await listHints(url, "from-the-environment");
  assert.equal(hints.get("big"), 20_480, "serve.client_ceiling");
  assert.doesNotMatch(serve.stderr.text, /bearer token/, "a configured token is not printed");
  const auth = { authorization: "Bearer from-the-environment" };
  assert.equal(await status(url, { ...auth, origin: "https://app.example.com" }), 200);
  assert.equal(await status(url, { ...auth, origin: "https://evil.example.com" }), 403);
  assert.equal(await status(url, { authorization: "Bearer guess" }), 401);
});

Deno.test("--client-ceiling wins over serve.client_ceiling", async () => {
  await using serve = await spawnHttpServe(["--client-ceiling", "64KB"], {
    config: upstreamConfig(SERVE),
    env: { MY_GATEWAY_TOKEN: "t" },
  });
  assert.equal((await listHints(serve.url as URL, "t")).get("big"), 65_536);
});

Deno.test("serve.token_env naming an unset variable stops serve at start, saying so", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway-serve-token-" });
  try {
    const config = join(dir, "config.toml");
    await Deno.writeTextFile(config, upstreamConfig(SERVE));
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", CLI, "serve", "--http", "127.0.0.1:0", "--config", config],
      cwd: dir,
      env: { MY_GATEWAY_TOKEN: "" },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(code, 1);
    assert.match(
      new TextDecoder().decode(stderr),
      /^The configuration is invalid \(1 problem\):\n {2}\S+config\.toml:7: serve\.token_env = "MY_GATEWAY_TOKEN" names a variable that is not set: set MY_GATEWAY_TOKEN to the token your clients send, or remove serve\.token_env to get a generated token/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve without a terminal refuses an ask tool at start, saying which entry and how to fix it", async () => {
  const workspace = await workspaceWith(
    upstreamConfig(`[conversation.tools.big]\nresult = "ask"\n`),
  );
  try {
    for (const transport of [["--stdio"], ["--http", "127.0.0.1:0"]]) {
      const run = await finished(
        spawnSpillway(
          ["serve", ...transport, "--workspace", workspace, "--config", "config.toml"],
          {
            cwd: workspace,
            denoFlags: ["--allow-net=127.0.0.1", "--allow-sys"],
          },
        ),
      );
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stdout, "", "stdout carries only the protocol");
      assert.equal(
        run.stderr,
        'spillway serve: conversation.tools.big.result = "ask" needs a person to ask, and no terminal is attached: ' +
          'run in a terminal, or set result = "unattended" ' +
          "(e.g. --cfg conversation.tools.big.result=unattended)\n",
      );
    }
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});
