/**
 * The library under plain `node`, from the installed npm package, with the
 * PostgreSQL store: the store a workspace's `[store] type = "postgres"`
 * names (`openStore`) given to `createRuntime`, a turn whose tool returns
 * 600 KB; the cut response is committed to the database, as plain SQL
 * reads it.
 */

import assert from "node:assert/strict";
import { installPackage, PACKAGE_REQUIRED, PACKAGE_TARBALL } from "./_installed_package.ts";
import { join } from "./_paths.ts";
import { PG_PASSWORD, pgTest, startPostgres, stopPostgresTest } from "./_postgres.ts";

/** A turn through the package: one call of a tool returning 600 KB. */
const PROGRAM = `
import { createRuntime, loadConfig, openStore } from "spillway";
const workspace = "ws";
const config = await loadConfig({ workspace });
const store = openStore(config, workspace, process.env);
await store.check();
const runtime = await createRuntime({
  workspace,
  config,
  store: store.conversations,
  blobs: store.blobs,
  provider: ({ cycle }) => Promise.resolve(
    cycle === 0
      ? { text: "Shouting.", toolCalls: [{ id: "c1", name: "shout", arguments: {} }] }
      : { text: "Done.", toolCalls: [] },
  ),
  tools: [{
    name: "shout",
    description: "Shouts",
    inputSchema: { type: "object", properties: {} },
    run: () => Promise.resolve("HI ".repeat(200_000)),
  }],
});
const turn = await runtime.query("Say hi, loudly");
console.log(turn.location);
await runtime.close();
await store.close();
`;

const withPackage = PACKAGE_TARBALL !== undefined || PACKAGE_REQUIRED;

if (withPackage) {
  pgTest(
    "createRuntime under node, from the package, commits the cut response to PostgreSQL",
    async () => {
      const server = await startPostgres();
      const url = await server.database("node");
      const installed = await installPackage();
      const admin = server.admin(new URL(url).pathname.slice(1));
      try {
        await Deno.mkdir(join(installed.dir, "ws"));
        await Deno.writeTextFile(
          join(installed.dir, "ws", "config.toml"),
          `[store]\ntype = "postgres"\nurl = "${url}"\npassword_env = "SPILLWAY_TEST_PG_PASSWORD"\n`,
        );
        await Deno.writeTextFile(join(installed.dir, "turn.mjs"), PROGRAM);
        const output = await new Deno.Command(join(installed.env.PATH!, "node"), {
          args: ["turn.mjs"],
          cwd: installed.dir,
          env: {
            ...installed.env,
            XDG_CONFIG_HOME: installed.dir,
            SPILLWAY_TEST_PG_PASSWORD: PG_PASSWORD,
          },
          clearEnv: true,
        }).output();
        const stderr = new TextDecoder().decode(output.stderr);
        assert.equal(output.code, 0, stderr);
        const location = new TextDecoder().decode(output.stdout);
        assert.doesNotMatch(location, /events\.jsonl/, "the file store recorded it");
        assert.equal(
          stderr,
          "shout: sent 256.0 KB of 585.9 KB to the assistant (size_threshold)\n",
        );
        const rows = await admin`select type, event from spillway_events
        where type = 'tool_call_response'`;
        assert.equal(rows.length, 1);
        const content =
          (typeof rows[0]!.event === "string" ? JSON.parse(rows[0]!.event) : rows[0]!.event)
            .content as string;
        assert.ok(content.endsWith("\n... [truncated, 585.9 KB → 256.0 KB]"), content.slice(-60));
      } finally {
        await admin.end();
        await installed.remove();
      }
    },
  );
  stopPostgresTest();
} else {
  Deno.test({
    name: "createRuntime under node, from the package, commits to PostgreSQL (no tarball)",
    ignore: true,
    fn: () => {},
  });
}
