import assert from "node:assert/strict";
import { SpillwayError } from "../errors/spillway_error.ts";
import { holdConversation } from "../testing/conversation_holder.ts";
import { FileStreamStore } from "./file_stream_store.ts";

Deno.test("a conversation open in another process is refused with its pid, and freed when that process dies", async () => {
  const root = await Deno.makeTempDir();
  const store = new FileStreamStore(root);
  const first = await store.open("c1");
  await first.append([{
    type: "turn_start",
    turn_id: "c1/1",
    prompt: "hi",
    at: "2026-11-30T00:00:00Z",
  }]);
  await first.flush();
  await first.close();
  const child = await holdConversation(root, "c1");
  try {
    const refused = await store.open("c1").then(
      () => assert.fail("expected the open to be refused"),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof SpillwayError);
    assert.equal(refused.code, "conversation_locked");
    assert.match(
      refused.message,
      new RegExp(
        `^conversation c1 is open in another process \\(pid ${child.pid}, since \\d{4}-[^)]+\\): ` +
          "nothing was changed; try again when that process has finished$",
      ),
    );
    // Reading needs no lock, and the refused open changed nothing.
    assert.equal((await store.read("c1")).events.length, 1);
    // Another conversation is not affected.
    await (await store.open("c2")).close();
  } finally {
    await child.kill();
  }
  const again = await store.open("c1");
  assert.equal((await again.load()).events.length, 1);
  await again.close();
  await Deno.remove(root, { recursive: true });
});

Deno.test("handles of one conversation in one process share the lock until the last closes", async () => {
  const root = await Deno.makeTempDir();
  const store = new FileStreamStore(root);
  const [a, b] = await Promise.all([store.open("c1"), new FileStreamStore(root).open("c1")]);
  await a.close();
  // b still holds it: another process is refused.
  const probe = await holdConversation(root, "c1").then(
    (child) => ({ child }),
    (error: Error) => ({ error }),
  );
  assert.ok("error" in probe, "the second process should not get the lock");
  assert.match(probe.error.message, /exited before locking: .*conversation c1 is open in another/);
  await b.close();
  await (await holdConversation(root, "c1")).kill();
  await Deno.remove(root, { recursive: true });
});

Deno.test("a lock whose note names this process (a child of ours still has its descriptor) is waited for, not refused", async () => {
  const root = await Deno.makeTempDir();
  const store = new FileStreamStore(root);
  await (await store.open("c1")).close();
  // Stands in for a child forked by this process that has not exec'd yet: it
  // holds the lock file's description, and the note names this process.
  const code = `
    const file = await Deno.open(${
    JSON.stringify(`${root}/c1/writer.lock`)
  }, { read: true, write: true });
    if (!await file.tryLock(true)) throw new Error("not free");
    await file.truncate(0);
    await file.write(new TextEncoder().encode("${Deno.pid} 2026-11-30T00:00:00.000Z\\n"));
    console.log("holding");
    // Answers pings until told to let go.
    const input = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
    for (let got = ""; !got.includes("release");) {
      const { value, done } = await input.read();
      if (done) break;
      got += value;
      if (value.includes("ping")) console.log("pong");
    }
    file.close();
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", code],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.equal((await lines.read()).value, "holding\n");
  const opening = store.open("c1");
  opening.catch(() => {}); // awaited below
  // Round trips to the holder give the open time to find the lock taken
  // (the case under test) before it is let go.
  const writer = child.stdin.getWriter();
  for (let i = 0; i < 3; i++) {
    await writer.write(new TextEncoder().encode("ping\n"));
    assert.equal((await lines.read()).value, "pong\n");
  }
  await writer.write(new TextEncoder().encode("release\n"));
  await writer.close();
  const stream = await opening;
  await stream.close();
  await lines.cancel();
  assert.equal((await child.status).success, true);
  await Deno.remove(root, { recursive: true });
});
