/**
 * The commands on a PostgreSQL store, as a person runs them (`spillway`
 * subprocesses): a `query` recorded from one workspace is listed, shown,
 * compacted and collected from another that never served it (another
 * machine); a conversation a running `query` holds is refused to a second
 * process, naming it, and freed when that process is killed; `config
 * check` names a store it cannot reach and never prints the password.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../src/cli.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";
import { finished, spawnQuery, spawnSpillway, workspaceWith } from "./_cli.ts";
import { StreamLines } from "./gateway_fixtures.ts";
import { PG_PASSWORD, pgTest, startPostgres, stopPostgresTest } from "./_postgres.ts";

const NOISY = new URL("../examples/tools/noisy_test_run.ts", import.meta.url).pathname;
const ENV = { SPILLWAY_DATABASE_PASSWORD: PG_PASSWORD };

function storeConfig(url: string, extra = ""): string {
  return `[store]
type = "postgres"
url = ${JSON.stringify(url)}
password_env = "SPILLWAY_DATABASE_PASSWORD"

[conversation.tools.noisy_test_run]
source = "local"
command = [${JSON.stringify(Deno.execPath())}, "run", ${JSON.stringify(NOISY)}]
spill = true

[conversation.tools.slow]
source = "local"
command = ["sleep", "600"]
${extra}`;
}

/** Runs `spillway …args` from `workspace` (its config.toml read), to its end. */
async function spillway(workspace: string, args: readonly string[]) {
  const run = await finished(
    spawnSpillway([...args.slice(0, 2), "--workspace", workspace, ...args.slice(2)], {
      cwd: workspace,
      env: ENV,
      denoFlags: ["--allow-net", "--allow-sys"],
    }),
  );
  assert.ok(!(run.stdout + run.stderr).includes(PG_PASSWORD), "the password was printed");
  return run;
}

pgTest(
  "a conversation recorded from one machine is listed, shown, compacted and collected from another",
  async () => {
    const server = await startPostgres();
    const url = await server.database("cli");
    const served = await workspaceWith(storeConfig(url), {
      "script.toml": `[[cycles]]
text = "Running the tests."
tool_calls = [{ id = "call_1", name = "noisy_test_run", arguments = { megabytes = 3 } }]

[[cycles]]
text = "Done."
`,
    });
    const other = await workspaceWith(storeConfig(url));
    try {
      const query = await finished(
        spawnQuery(served, ["--script", "script.toml", "Run the tests"], {
          env: ENV,
          denoFlags: ["--allow-net", "--allow-sys"],
        }),
      );
      assert.equal(query.code, 0, query.stderr);
      const id =
        /^Conversation (\S+) \(.*\): postgres:\/\/spillway@127\.0\.0\.1:\d+\/cli_\S+\/conversations\/\1$/m
          .exec(query.stdout)?.[1];
      assert.ok(id !== undefined, query.stdout);

      const ls = await spillway(other, ["conversation", "ls"]);
      assert.equal(ls.code, 0, ls.stderr);
      assert.match(
        ls.stdout,
        new RegExp(`^  ${id}   .*256\\.0 KB noisy_test_run   no {15}-$`, "m"),
      );
      assert.match(
        ls.stdout,
        /^1 conversation in postgres:\/\/spillway@127\.0\.0\.1:\d+\/cli_\S+\.$/m,
      );

      const show = await spillway(other, ["conversation", "show", id]);
      assert.equal(show.code, 0, show.stderr);
      assert.match(show.stdout, /◂ result: 256\.0 KB, cut when recorded \(3\.0 MB → 256\.0 KB\)/);

      const compact = await spillway(other, [
        "conversation",
        "compact",
        "--tools=strip-responses",
        "--over",
        "32KB",
        id,
      ]);
      assert.equal(compact.code, 0, compact.stderr);
      assert.match(compact.stdout, /1 response stripped/);
      const events = await server.admin(new URL(url).pathname.slice(1));
      try {
        const types = await events`select type from spillway_events
          where conversation_id = ${id} order by seq`;
        assert.equal(types.at(-1)?.type, "compaction");
      } finally {
        await events.end();
      }

      // The other machine has none of the full-result files (they stay where the query ran).
      // The spilled output is referenced by the conversation: gc keeps it.
      const gc = await spillway(other, ["conversation", "gc", "--older-than", "0"]);
      assert.equal(gc.code, 0, gc.stderr);
      assert.match(
        gc.stdout,
        /^No stored outputs that no conversation refers to in postgres:\/\/spillway@127\.0\.0\.1:\d+\/cli_\S+\.$/m,
      );
    } finally {
      await Deno.remove(served, { recursive: true });
      await Deno.remove(other, { recursive: true });
    }
  },
);

pgTest(
  "a conversation a running query holds is refused to another process, and freed when that one is killed",
  async () => {
    const server = await startPostgres();
    const url = await server.database("lock");
    const first = await workspaceWith(storeConfig(url), {
      "script.toml": `[[cycles]]
text = "Waiting."
tool_calls = [{ id = "call_1", name = "slow", arguments = {} }]
`,
    });
    const second = await workspaceWith(storeConfig(url));
    const child = spawnQuery(
      first,
      ["--script", "script.toml", "--conversation", "held-1", "Wait"],
      {
        env: ENV,
        denoFlags: ["--allow-net", "--allow-sys"],
      },
    );
    const stdout = new StreamLines(child.stdout);
    const stderr = new StreamLines(child.stderr);
    try {
      // The call runs: the query has its conversation open.
      await stdout.waitFor(/▸ slow \{\}/);
      const refused = await spillway(second, [
        "conversation",
        "compact",
        "--tools=cap",
        "held-1",
      ]);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        new RegExp(
          `^error: conversation held-1 is open in another process \\(pid ${child.pid} on [^,]+, ` +
            `since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\): nothing was changed; try again when that ` +
            `process has finished\\n$`,
        ),
      );
      child.kill("SIGKILL");
      await child.status;
      // Its connection went with it, and the server freed its lock.
      const compact = await spillway(second, ["conversation", "compact", "--tools=cap", "held-1"]);
      assert.equal(compact.code, 0, compact.stderr);
      assert.match(compact.stdout, /^held-1: nothing to change/m);
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
      await child.status;
      await stdout.ended;
      await stderr.ended;
      await Deno.remove(first, { recursive: true });
      await Deno.remove(second, { recursive: true });
    }
  },
);

pgTest(
  "config check names a store it cannot reach and exits 1, never printing the password",
  async () => {
    const server = await startPostgres();
    const url = await server.database("check");
    const reachable = await workspaceWith(storeConfig(url));
    // A port nothing listens on.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const closedPort = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const unreachable = await workspaceWith(
      storeConfig(`postgres://spillway@127.0.0.1:${closedPort}/nowhere`),
    );
    try {
      const ok = await spillway(reachable, ["config", "check"]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /^ {2}reached {14}yes \(schema version 2\)\s*$/m);
      assert.match(ok.stdout, /^ {2}store\.password_env {3}SPILLWAY_DATABASE_PASSWORD \(set\) /m);

      const failed = await spillway(unreachable, ["config", "check"]);
      assert.equal(failed.code, 1);
      assert.match(failed.stdout, /^ {2}reached {14}no \(see below\)\s*$/m);
      assert.match(
        failed.stderr,
        new RegExp(
          `^error: the store postgres://spillway@127\\.0\\.0\\.1:${closedPort}/nowhere cannot be ` +
            `reached: could not reach postgres://spillway@127\\.0\\.0\\.1:${closedPort}/nowhere: ` +
            `.*ECONNREFUSED.*$`,
          "m",
        ),
      );
      assert.ok(!join(failed.stdout, failed.stderr).includes(PG_PASSWORD));
    } finally {
      await Deno.remove(reachable, { recursive: true });
      await Deno.remove(unreachable, { recursive: true });
    }
  },
);

pgTest(
  "the repair hint of a conversation in a store --config names runs as printed, --config included",
  async () => {
    const server = await startPostgres();
    const url = await server.database("hint");
    const dir = await Deno.makeTempDir({ prefix: "spillway_hint_" });
    const run = async (...args: string[]) => {
      const io = captureCommandIo({ cwd: dir, env: ENV });
      const code = await main(args, io);
      return { code, out: io.out(), err: io.err() };
    };
    try {
      await Deno.writeTextFile(join(dir, "store.toml"), storeConfig(url));
      await Deno.writeTextFile(
        join(dir, "big.toml"),
        `context_window = "1MB"
[[cycles]]
text = "Reading it."
tool_calls = [{ id = "call_1", name = "fs_read_file", arguments = { path = "big.txt" } }]
[[cycles]]
text = "It is big."
`,
      );
      await Deno.writeTextFile(
        join(dir, "answer.toml"),
        `context_window = "1MB"
[[cycles]]
text = "Still here."
`,
      );
      await Deno.writeTextFile(join(dir, "big.txt"), "log line\n".repeat(350_000));
      const first = await run(
        "query",
        "--config",
        "store.toml",
        "--cfg",
        "conversation.tools.fs_read_file.size_threshold=unlimited",
        "--script",
        "big.toml",
        "--quiet",
        "read big.txt",
      );
      assert.equal(first.code, 1, first.err);
      const id = /Conversation (\S+):/.exec(first.err)?.[1];
      assert.ok(id !== undefined, first.err);
      const again = ["query", "--config", "store.toml", "--conversation", id, "--script"];
      const dead = await run(...again, "answer.toml", "again");
      assert.equal(dead.code, 1);
      const hint = dead.err.split("\n").slice(-3);
      assert.deepEqual(hint, [
        "Repair without a model call (the log keeps every original byte):",
        `  deno task spillway conversation compact --tools=strip-responses --over 32KB --config store.toml ${id}`,
        "",
      ]);
      const printed = hint[1]!.trim().split(" ").slice(3);
      // Without its --config the command looks in the workspace's files, where nothing is.
      const elsewhere = await run(
        ...printed.filter((w, i, all) => w !== "--config" && all[i - 1] !== "--config"),
      );
      assert.notEqual(elsewhere.code, 0);
      const repaired = await run(...printed);
      assert.equal(repaired.code, 0, repaired.err);
      assert.match(repaired.out, new RegExp(`^${id}: 1 response stripped`));
      const after = await run(...again, "answer.toml", "again");
      assert.equal(after.code, 0, after.err);
      assert.match(after.out, /assistant: Still here\./);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

stopPostgresTest();
