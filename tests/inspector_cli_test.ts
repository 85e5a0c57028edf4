/**
 * `deno task inspector FILE` as a person runs it: the command of the task
 * (its permissions too), the address it prints, the page answering there
 * (the view, and Mermaid's bundle that it serves itself),
 * and Ctrl-C ending it with exit code 0.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { finished, REPO, spawnSpillway } from "./_cli.ts";

Deno.test("deno task inspector serves FILE on 127.0.0.1 and stops on Ctrl-C", async () => {
  const config = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json")));
  const task: string = config.tasks.inspector;
  assert.match(task, /^deno run (--allow-[\w=.0-9-]+ )+src\/cli\.ts inspect --serve$/);
  const dir = await Deno.makeTempDir();
  const file = join(dir, "run.jsonl");
  await Deno.writeTextFile(
    file,
    '{"type":"@xstate.snapshot","actor":"turn","state":"requesting","status":"active"}\n',
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: [...task.split(" ").slice(1), "--port", "0", file],
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stopped = false;
  try {
    // Read what it prints until its three lines are out (it then waits for requests).
    let printed = "";
    while (printed.split("\n").length < 4) {
      const { value, done } = await reader.read();
      if (done) break;
      printed += value;
    }
    const url = /^spillway inspector: (http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(printed)?.[1];
    assert.ok(url, printed);
    assert.equal(
      printed,
      `spillway inspector: ${url}\nReplaying ${file}, and following it while it grows.\n` +
        "Ctrl-C stops it.\n",
    );
    const view = await (await fetch(url + "view.json")).json();
    assert.deepEqual([view.steps, view.said], [1, "turn → requesting"]);
    // Mermaid's bundle, read from Deno's npm cache under the task's own permissions.
    const bundle = await fetch(url + "mermaid.min.js");
    assert.equal(bundle.status, 200);
    assert.match(await bundle.text(), /mermaid/);
    child.kill("SIGINT");
    stopped = true;
    assert.equal((await child.status).code, 0);
    assert.equal(await stderr, "");
  } finally {
    if (!stopped) child.kill("SIGKILL");
    await reader.cancel();
    await child.status;
    await stderr;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("query and serve refuse an --inspect FILE they cannot write, naming it, before starting", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const script = join(REPO, "examples", "demo", "script.toml");
    for (const command of [["query", "--script", script, "hello"], ["serve", "--stdio"]]) {
      const run = await finished(
        spawnSpillway([...command, "--inspect", "missing/inspect.jsonl"], { cwd: dir }),
      );
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, "");
      assert.equal(
        run.stderr,
        `spillway ${command[0]}: --inspect "missing/inspect.jsonl" cannot be written: ` +
          `No such file or directory (os error 2): open '${join(dir, "missing/inspect.jsonl")}' ` +
          "(give a file in a directory that exists and you can write to)\n" +
          `Run \`deno task spillway ${command[0]} --help\` for usage.\n`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
