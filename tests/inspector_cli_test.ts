/**
 * `deno task inspector FILE` as a person runs it: the command of the task
 * (its permissions too), the address it prints, the page answering there,
 * and Ctrl-C ending it with exit code 0.
 */

import assert from "node:assert/strict";
import { join } from "node:path";

const REPO = new URL("..", import.meta.url);

Deno.test("deno task inspector serves FILE on 127.0.0.1 and stops on Ctrl-C", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", REPO)));
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
