/**
 * Each client's prompts and resources are its own: a `spillway serve
 * --http` gateway with two clients of their own tokens, in front of an
 * upstream whose lists depend on the connection (tests/fixtures/gateway/
 * pages_upstream.ts lists its own process id and the pages opened on it, as
 * a browser lists its open pages). A client's listings come from its own
 * connection (process), so bob never sees alice's pages; a list_changed from
 * alice's connection relists her catalog and reaches her sessions, and only
 * hers; her server started again after it exited is listed again (and she
 * is told); once her last session ended, her next one is listed afresh.
 */

import assert from "node:assert/strict";
import { type Client, ProtocolError } from "../src/service/sdk.ts";
import { Milestones } from "../src/testing/tool_source_contract.ts";
import { textOf } from "./gateway_fixtures.ts";
import { type ClientName, clientOf, endSession, spawnClientsServe } from "./_clients.ts";

const PAGES = new URL("./fixtures/gateway/pages_upstream.ts", import.meta.url).pathname;

const CONFIG = `[providers.mcp.pages]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ["run", "--quiet", "--allow-env", ${JSON.stringify(PAGES)}]
`;

/** A session of `name`, counting the list_changed notifications it gets, by kind. */
interface Watched {
  readonly sdk: Client;
  readonly prompts: Milestones;
  readonly resources: Milestones;
  readonly tools: Milestones;
}

async function watched(url: URL, name: ClientName): Promise<Watched> {
  const [prompts, resources, tools] = [new Milestones(), new Milestones(), new Milestones()];
  const sdk = await clientOf(url, name, (sdk) => {
    sdk.setNotificationHandler("notifications/prompts/list_changed", () => prompts.add());
    sdk.setNotificationHandler("notifications/resources/list_changed", () => resources.add());
    sdk.setNotificationHandler("notifications/tools/list_changed", () => tools.add());
  });
  return { sdk, prompts, resources, tools };
}

async function call(session: Watched, name: string, args: Record<string, unknown> = {}) {
  return textOf(await session.sdk.callTool({ name, arguments: args }));
}

async function uris(session: Watched): Promise<string[]> {
  return (await session.sdk.listResources()).resources.map((resource) => resource.uri);
}

async function promptNames(session: Watched): Promise<string[]> {
  return (await session.sdk.listPrompts()).prompts.map((prompt) => prompt.name);
}

/** The MCP error `request` fails with. */
async function refusal(request: () => Promise<unknown>): Promise<ProtocolError> {
  const error = await request().then(() => undefined, (error: unknown) => error);
  assert.ok(error instanceof ProtocolError, `expected an MCP error, got ${String(error)}`);
  return error;
}

/**
 * Resolves once every session has had `n` tools/list_changed: a tool change
 * reaches every client, after whatever the gateway sent each before it.
 */
async function everyoneHeard(sessions: readonly Watched[], n: number): Promise<void> {
  await Promise.all(sessions.map((session) => session.tools.reached(n)));
}

Deno.test("serve --http: a client's prompts and resources are listed from its own connection, and only its sessions hear they changed", async () => {
  await using serve = await spawnClientsServe("", { config: CONFIG });
  const url = serve.url as URL;
  const alice = await watched(url, "alice");
  const alice2 = await watched(url, "alice");
  const bob = await watched(url, "bob");
  const [a, a2, b] = [await call(alice, "pid"), await call(alice2, "pid"), await call(bob, "pid")];
  assert.equal(a, a2);
  assert.notEqual(a, b);

  // Each lists what its own process lists.
  assert.deepEqual(await uris(alice), [`page://${a}/home`]);
  assert.deepEqual(await uris(bob), [`page://${b}/home`]);
  assert.deepEqual(await promptNames(alice), [`home_${a}`]);
  assert.deepEqual(await promptNames(bob), [`home_${b}`]);
  assert.deepEqual((await bob.sdk.listResourceTemplates()).resourceTemplates, []);

  // alice opens a page: her connection says both lists changed; both her sessions hear it.
  assert.equal(await call(alice, "open_page", { name: "alice-secret" }), "opened alice-secret");
  await Promise.all([alice, alice2].flatMap((s) => [s.resources.reached(1), s.prompts.reached(1)]));
  assert.deepEqual(await uris(alice2), [`page://${a}/home`, `page://${a}/alice-secret`]);
  assert.deepEqual(await promptNames(alice2), [`home_${a}`, "page_alice-secret"]);
  // A tool change reaches everyone, after what each was sent before: bob was sent nothing.
  assert.equal(await call(bob, "add_tool"), "added tool_1");
  await everyoneHeard([alice, alice2, bob], 1);
  assert.deepEqual([bob.resources.count, bob.prompts.count], [0, 0]);
  assert.deepEqual(await uris(bob), [`page://${b}/home`]);
  assert.deepEqual(await promptNames(bob), [`home_${b}`]);
  // Nor can bob reach alice's page or prompt: his requests go to his own process.
  const read = await refusal(() => bob.sdk.readResource({ uri: `page://${a}/alice-secret` }));
  assert.equal(
    read.message,
    `mcp.pages failed resources/read: ${b} has no page page://${a}/alice-secret`,
  );
  const prompt = await refusal(() => bob.sdk.getPrompt({ name: "page_alice-secret" }));
  assert.equal(prompt.message, `unknown prompt "page_alice-secret"`);
  const own = await alice.sdk.readResource({ uri: `page://${a}/alice-secret` });
  assert.deepEqual(own.contents, [{
    uri: `page://${a}/alice-secret`,
    text: `alice-secret in ${a}`,
  }]);

  // And the other way round.
  assert.equal(await call(bob, "open_page", { name: "bob-page" }), "opened bob-page");
  await Promise.all([bob.resources.reached(1), bob.prompts.reached(1)]);
  assert.equal(await call(alice, "add_tool"), "added tool_1");
  await everyoneHeard([alice, alice2, bob], 2);
  for (const session of [alice, alice2]) {
    assert.deepEqual([session.resources.count, session.prompts.count], [1, 1]);
  }
  assert.deepEqual(await uris(bob), [`page://${b}/home`, `page://${b}/bob-page`]);
  assert.deepEqual(await uris(alice), [`page://${a}/home`, `page://${a}/alice-secret`]);

  // alice's server exits: started again by her next call, it is listed again, and she is told.
  await alice.sdk.callTool({ name: "crash", arguments: {} });
  const restarted = await call(alice, "pid");
  assert.ok(restarted !== a && restarted !== b);
  await Promise.all([alice, alice2].flatMap((s) => [s.resources.reached(2), s.prompts.reached(2)]));
  assert.deepEqual(await uris(alice2), [`page://${restarted}/home`]);
  assert.deepEqual(await promptNames(alice), [`home_${restarted}`]);
  assert.equal(await call(bob, "add_tool"), "added tool_2");
  await everyoneHeard([alice, alice2, bob], 3);
  assert.deepEqual([bob.resources.count, bob.prompts.count], [1, 1]);

  // alice's last session ends: her next one is listed from her new process.
  await endSession(alice.sdk);
  await endSession(alice2.sdk);
  const again = await watched(url, "alice");
  const a3 = await call(again, "pid");
  assert.ok(a3 !== a && a3 !== b && a3 !== restarted);
  assert.deepEqual(await uris(again), [`page://${a3}/home`]);
  assert.deepEqual(await promptNames(again), [`home_${a3}`]);
  await endSession(again.sdk);
  await endSession(bob.sdk);
});
