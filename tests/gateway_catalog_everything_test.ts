/**
 * `spillway serve --stdio` in front of the reference server
 * `@modelcontextprotocol/server-everything`: an SDK client gets the
 * server's own prompts, resources and resource templates, as a client of
 * the server itself does.
 */

import assert from "node:assert/strict";
import { Client, type Prompt, StdioClientTransport } from "../src/service/sdk.ts";
import { cacheEverything, EVERYTHING_ARGS, everythingProvider } from "./_everything.ts";
import { join } from "./_paths.ts";
import { serveStdio } from "./_serve_stdio.ts";

/** What a client sees of the server's prompts and resources. */
async function catalogOf(client: Client) {
  const { prompts } = await client.listPrompts();
  const resources = [];
  let cursor: string | undefined;
  do {
    const page = await client.listResources(cursor === undefined ? undefined : { cursor });
    resources.push(...page.resources);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const { resourceTemplates } = await client.listResourceTemplates();
  const simple = prompts.find((prompt: Prompt) =>
    (prompt.arguments ?? []).every((argument) => argument.required !== true)
  );
  const first = resources[0];
  return {
    prompts,
    resources,
    resourceTemplates,
    prompt: simple === undefined ? undefined : await client.getPrompt({ name: simple.name }),
    read: first === undefined ? undefined : await client.readResource({ uri: first.uri }),
  };
}

Deno.test("serve --stdio in front of server-everything: a client gets its prompts and resources", async () => {
  await cacheEverything();
  const direct = new Client({ name: "direct", version: "1.0.0" });
  await direct.connect(
    new StdioClientTransport({ command: Deno.execPath(), args: EVERYTHING_ARGS, stderr: "ignore" }),
  );
  let expected;
  try {
    expected = await catalogOf(direct);
  } finally {
    await direct.close();
  }
  assert.ok(expected.prompts.length > 0 && expected.resources.length > 0);
  assert.ok(expected.prompt !== undefined && expected.read !== undefined);

  const dir = await Deno.makeTempDir({ prefix: "spillway_catalog_serve_" });
  try {
    const config = join(dir, "config.toml");
    await Deno.writeTextFile(config, everythingProvider());
    const { client } = await serveStdio(dir, config);
    try {
      const capabilities = client.getServerCapabilities();
      assert.deepEqual(capabilities?.prompts, { listChanged: true });
      // server-everything offers resource subscriptions and completion: so does spillway.
      assert.deepEqual(capabilities?.resources, { listChanged: true, subscribe: true });
      assert.deepEqual(capabilities?.completions, {});
      assert.deepEqual(await catalogOf(client), expected);
    } finally {
      await client.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
