/**
 * The upstream servers' prompts and resources through `spillway serve`:
 * two scripted upstreams (`a` configured first, `b`) that clash on a prompt
 * and a resource, behind the gateway over HTTP, with a real SDK client.
 */

import assert from "node:assert/strict";
import { ProtocolError, ProtocolErrorCode } from "../src/service/sdk.ts";

import { startHttpGateway, textOf, upstreamConfig } from "./gateway_fixtures.ts";
import { Milestones } from "../src/testing/tool_source_contract.ts";

const CATALOG = new URL("./fixtures/gateway/catalog_upstream.ts", import.meta.url).pathname;

function provider(name: string, flags = ""): string {
  return `[providers.mcp.${name}]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ["run", "--quiet", "--allow-env", ${JSON.stringify(CATALOG)}, "${name}"${flags}]
`;
}

async function startCatalogGateway(extra = "") {
  const warnings: string[] = [];
  const gateway = await startHttpGateway({
    config: provider("a") + provider("b") + extra,
    gateway: { warn: (message) => warnings.push(message) },
  });
  return { gateway, warnings };
}

/** The text of a prompt's first message. */
function promptText(result: { messages: { content: unknown }[] }): string {
  const content = result.messages[0]?.content as { text?: string } | undefined;
  return content?.text ?? "";
}

/** The text of a resource read's first content. */
function resourceText(result: { contents: unknown[] }): string {
  return (result.contents[0] as { text?: string } | undefined)?.text ?? "";
}

Deno.test("a gateway client gets the upstreams' prompts and resources, the first configured winning a clash", async () => {
  const { gateway, warnings } = await startCatalogGateway();
  await using _ = gateway;
  const client = await gateway.client();
  const capabilities = client.getServerCapabilities();
  assert.deepEqual(capabilities?.prompts, { listChanged: true });
  assert.deepEqual(capabilities?.resources, { listChanged: true });
  assert.deepEqual(warnings, [
    `mcp.a and mcp.b both list the prompt "greet": clients get mcp.a's (configured first)`,
    `mcp.a and mcp.b both list the prompt "broken": clients get mcp.a's (configured first)`,
    `mcp.a and mcp.b both list the resource "test://shared": clients get mcp.a's (configured first)`,
  ]);

  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.map((prompt) => prompt.name), ["greet", "broken", "a_own", "b_own"]);
  assert.deepEqual(prompts[0]?.arguments, [{ name: "who", required: true }]);
  assert.equal(
    promptText(await client.getPrompt({ name: "greet", arguments: { who: "Ann" } })),
    "a greets Ann",
  );
  assert.equal(promptText(await client.getPrompt({ name: "b_own" })), "b own prompt");

  // Each upstream lists one resource a page: every page is followed.
  const { resources, nextCursor } = await client.listResources();
  assert.deepEqual(resources.map((resource) => resource.uri), [
    "test://shared",
    "test://a/own",
    "test://b/own",
  ]);
  assert.equal(nextCursor, undefined);
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((template) => template.uriTemplate), [
    "test://a/items/{id}",
    "test://b/items/{id}",
  ]);
  assert.equal(resourceText(await client.readResource({ uri: "test://shared" })), "shared from a");
  assert.equal(resourceText(await client.readResource({ uri: "test://b/own" })), "b own resource");
  // An unlisted URI goes to the server whose template matches it.
  assert.equal(resourceText(await client.readResource({ uri: "test://b/items/7" })), "item 7 of b");
});

Deno.test("a failing prompts/get or resources/read is a clear MCP error, and the gateway keeps serving", async () => {
  const { gateway } = await startCatalogGateway();
  await using _ = gateway;
  const client = await gateway.client();
  const refused = async (request: () => Promise<unknown>, code: number, message: string) => {
    const error = await request().then(() => undefined, (error: unknown) => error);
    assert.ok(error instanceof ProtocolError, `expected an MCP error, got ${String(error)}`);
    assert.equal(error.code, code);
    assert.equal(error.message, message);
  };
  await refused(
    () => client.getPrompt({ name: "broken" }),
    ProtocolErrorCode.InvalidParams,
    "mcp.a failed prompts/get: a cannot render broken",
  );
  await refused(
    () => client.getPrompt({ name: "nobody" }),
    ProtocolErrorCode.InvalidParams,
    `unknown prompt "nobody"`,
  );
  await refused(
    () => client.readResource({ uri: "test://b/items/bad" }),
    ProtocolErrorCode.InvalidParams,
    "mcp.b failed resources/read: b has no resource test://b/items/bad",
  );
  await refused(
    () => client.readResource({ uri: "test://c/x" }),
    ProtocolErrorCode.InvalidParams,
    `unknown resource "test://c/x": no upstream server lists it or a template matching it`,
  );
  // The upstream exits: the next request starts it again.
  await client.callTool({ name: "a_crash", arguments: {} });
  assert.equal(promptText(await client.getPrompt({ name: "a_own" })), "a own prompt");
  assert.equal(resourceText(await client.readResource({ uri: "test://a/own" })), "a own resource");
});

Deno.test("an upstream's prompts and resources changing reaches the gateway's clients", async () => {
  const { gateway } = await startCatalogGateway();
  await using _ = gateway;
  const prompts = new Milestones();
  const resources = new Milestones();
  const client = await gateway.client({
    setup: (client) => {
      client.setNotificationHandler("notifications/prompts/list_changed", () => prompts.add());
      client.setNotificationHandler("notifications/resources/list_changed", () => resources.add());
    },
  });
  assert.equal(textOf(await client.callTool({ name: "b_add", arguments: {} })), "added");
  await prompts.reached(1);
  await resources.reached(1);
  const listed = await client.listPrompts();
  assert.ok(listed.prompts.some((prompt) => prompt.name === "b_late"));
  assert.equal(promptText(await client.getPrompt({ name: "b_late" })), "b late prompt");
  const { resources: uris } = await client.listResources();
  assert.ok(uris.some((resource) => resource.uri === "test://b/late"));
});

Deno.test("stored outputs stay resources beside the upstreams'", async () => {
  const { gateway } = await startCatalogGateway(
    upstreamConfig(`[conversation.tools.big]\nsource = "mcp.conf"\nspill = true\n`),
  );
  await using _ = gateway;
  const client = await gateway.client();
  await client.callTool({ name: "big", arguments: { bytes: 300_000 } });
  const { resources } = await client.listResources();
  const uris = resources.map((resource) => resource.uri);
  assert.deepEqual(uris.slice(0, 3), ["test://shared", "test://a/own", "test://b/own"]);
  assert.equal(uris.length, 4);
  const stored = uris[3] ?? "";
  assert.match(stored, /^spillway:\/\/outputs\/sha256:[0-9a-f]{64}$/);
  assert.equal(resourceText(await client.readResource({ uri: stored })).length, 300_000);
  assert.equal(resourceText(await client.readResource({ uri: "test://a/own" })), "a own resource");
  const error = await client.readResource({ uri: "spillway://outputs/sha256:nope" }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.match(String(error), /unknown resource "spillway:\/\/outputs\/sha256:nope"/);
});

Deno.test("an upstream whose resource pages loop serves no resources, with a warning; its prompts still pass", async () => {
  const warnings: string[] = [];
  await using gateway = await startHttpGateway({
    config: provider("a", `, "--loop-cursor"`),
    gateway: { warn: (message) => warnings.push(message) },
  });
  assert.deepEqual(warnings, [
    `mcp.a: listing its resources failed, none are served: it repeated the cursor "again"`,
  ]);
  const client = await gateway.client();
  assert.deepEqual((await client.listResources()).resources, []);
  assert.equal(promptText(await client.getPrompt({ name: "a_own" })), "a own prompt");
});
