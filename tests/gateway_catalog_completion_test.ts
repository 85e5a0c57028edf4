/**
 * `completion/complete` and resource subscriptions through `spillway
 * serve`, in front of the v2 conformance upstream spoken to in 2025-11-25
 * (`protocol = "2025-11-25"`; 2026-07-28 has no `resources/subscribe`): the
 * gateway advertises them because the upstream offers them, passes each
 * request on to the server of the prompt, template or resource it names,
 * and tells a subscribed session of the resource's updates.
 */

import assert from "node:assert/strict";
import { startHttpGateway } from "./gateway_fixtures.ts";
import { V2_ARGS } from "./_upstream_v2.ts";

const CONFIG = `[providers.mcp.v2]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify([...V2_ARGS, "--protocol", "2025-11-25"])}
protocol = "2025-11-25"
`;

Deno.test("completion/complete and resources/subscribe pass through to the upstream that offers them", async () => {
  await using gw = await startHttpGateway({ config: CONFIG });
  const client = await gw.client();
  const capabilities = client.getServerCapabilities();
  assert.deepEqual(capabilities?.completions, {});
  assert.equal(capabilities?.resources?.subscribe, true);

  const byPrompt = await client.complete({
    ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
    argument: { name: "arg1", value: "a" },
  });
  assert.deepEqual(byPrompt.completion, { values: [], total: 0, hasMore: false });
  const byTemplate = await client.complete({
    ref: { type: "ref/resource", uri: "test://template/{id}/data" },
    argument: { name: "id", value: "1" },
  });
  assert.deepEqual(byTemplate.completion.values, []);
  await assert.rejects(
    client.complete({
      ref: { type: "ref/prompt", name: "no_such_prompt" },
      argument: { name: "x", value: "" },
    }),
    /unknown prompt "no_such_prompt"/,
  );

  const updated: string[] = [];
  const told = Promise.withResolvers<void>();
  client.setNotificationHandler("notifications/resources/updated", (note) => {
    updated.push(note.params.uri);
    told.resolve();
  });
  await client.subscribeResource({ uri: "test://watched-resource" });
  await client.callTool({ name: "spillway_touch", arguments: { uri: "test://watched-resource" } });
  await told.promise;
  assert.deepEqual(updated, ["test://watched-resource"]);
  await client.unsubscribeResource({ uri: "test://watched-resource" });
});

Deno.test("resources/subscribe to a 2026-07-28 upstream is held on a listen stream of its own", async () => {
  const config = `[providers.mcp.v2]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify([...V2_ARGS, "--protocol", "2026-07-28"])}
`;
  await using gw = await startHttpGateway({ config });
  const client = await gw.client();
  assert.equal(client.getServerCapabilities()?.resources?.subscribe, true);
  await client.subscribeResource({ uri: "test://watched-resource" });
  await client.unsubscribeResource({ uri: "test://watched-resource" });
  const read = await client.readResource({ uri: "test://watched-resource" });
  assert.deepEqual(read.contents.map((c) => "text" in c ? c.text : undefined), [
    "Watched resource content",
  ]);
});
