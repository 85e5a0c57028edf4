import assert from "node:assert/strict";
import { captureCommandIo } from "../commands/command_io.ts";
import { TerminalPrompter } from "./terminal_prompter.ts";

const call = { id: "call_1", name: "cargo_test", arguments: {} };
const response = { id: "call_1", content: "x".repeat(3000), isError: false };
const signal = new AbortController().signal;

function answers(...lines: (string | null)[]) {
  return () => Promise.resolve(lines.length > 0 ? lines.shift() ?? null : null);
}

Deno.test("TerminalPrompter.ask() offers deliver, edit and skip, and re-asks on nonsense", async () => {
  const io = captureCommandIo();
  const prompter = new TerminalPrompter({ io, readLine: answers("what", "s") });
  assert.deepEqual(await prompter.ask(call, response, signal), { kind: "skip" });
  assert.equal(
    io.err(),
    "cargo_test (call_1) returned 2.9 KB. [d]eliver, [e]dit, [s]kip? please answer d, e or s\n" +
      "cargo_test (call_1) returned 2.9 KB. [d]eliver, [e]dit, [s]kip? ",
  );
  const deliver = new TerminalPrompter({ io, readLine: answers("") });
  assert.deepEqual(await deliver.ask(call, response, signal), { kind: "deliver" });
  const eof = new TerminalPrompter({ io, readLine: answers(null) });
  assert.deepEqual(await eof.ask(call, response, signal), { kind: "skip" });
});

Deno.test("TerminalPrompter.edit() returns what the editor left in the file", async () => {
  const io = captureCommandIo();
  const script = `await Deno.writeTextFile(Deno.args[0], "edited by the user");`;
  const prompter = new TerminalPrompter({
    io,
    editor: [Deno.execPath(), "eval", script],
  });
  // `deno eval` passes the file path after the script as Deno.args[0].
  assert.deepEqual(await prompter.edit(call, response, signal), {
    kind: "edit",
    content: "edited by the user",
  });
  const untouched = new TerminalPrompter({ io, editor: [Deno.execPath(), "eval", "0"] });
  assert.deepEqual(await untouched.edit(call, response, signal), { kind: "deliver" });
});

Deno.test("TerminalPrompter.edit() says what a changed edit drops of a result with an image", async () => {
  const io = captureCommandIo();
  const shot = { id: "call_2", name: "screenshot", arguments: {} };
  const image = { type: "image" as const, mimeType: "image/png", bytes: 3, digest: "sha256:aa" };
  const withImage = {
    id: "call_2",
    content: "the screen:\n[image: image/png, 3 B]",
    isError: false,
    blocks: [{ type: "text" as const, text: "the screen:" }, image],
    structuredContent: { bytes: 2, digest: "sha256:bb" },
  };
  const script = `await Deno.writeTextFile(Deno.args[0], "the screen: a login form");`;
  const prompter = new TerminalPrompter({ io, editor: [Deno.execPath(), "eval", script] });
  assert.deepEqual(await prompter.edit(shot, withImage, signal), {
    kind: "edit",
    content: "the screen: a login form",
  });
  assert.equal(
    io.err(),
    "screenshot (call_2): the edited text replaces the result; " +
      "dropped 1 image and its structured content\n",
  );
  // Saved unchanged: the result is delivered whole, nothing to say.
  const untouched = new TerminalPrompter({ io, editor: [Deno.execPath(), "eval", "0"] });
  assert.deepEqual(await untouched.edit(shot, withImage, signal), { kind: "deliver" });
  assert.equal(io.err().split("\n").length, 2);
});

Deno.test("TerminalPrompter.approveRun() runs, skips, or runs with edited arguments", async () => {
  const io = captureCommandIo();
  const yes = new TerminalPrompter({ io, readLine: answers("y") });
  assert.deepEqual(await yes.approveRun(call, "ask", signal), { kind: "run" });
  const no = new TerminalPrompter({ io, readLine: answers("huh", "n") });
  assert.deepEqual(await no.approveRun(call, "ask", signal), { kind: "skip" });
  assert.match(io.err(), /please answer y, e or n\n/);
  const script = `await Deno.writeTextFile(Deno.args[0], '{"filter": "parser"}');`;
  const edit = new TerminalPrompter({ io, editor: [Deno.execPath(), "eval", script] });
  assert.deepEqual(await edit.approveRun(call, "edit", signal), {
    kind: "edit",
    arguments: { filter: "parser" },
  });
  const broken = new TerminalPrompter({
    io,
    editor: [Deno.execPath(), "eval", `await Deno.writeTextFile(Deno.args[0], "{nope");`],
  });
  assert.deepEqual(await broken.approveRun(call, "edit", signal), { kind: "skip" });
});

Deno.test("TerminalPrompter edits in a temp file inside its folder whatever the tool is named", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_prompter_" });
  try {
    const tempDir = `${dir}/edits`;
    await Deno.mkdir(tempDir);
    const seen = `${dir}/paths.txt`;
    // The editor notes the file it was given and writes its own text there.
    const script = `await Deno.writeTextFile(${JSON.stringify(seen)}, Deno.args[0] + "\\n", ` +
      `{ append: true }); await Deno.writeTextFile(Deno.args[0], '{"edited": true}');`;
    const io = captureCommandIo();
    const prompter = new TerminalPrompter({
      io,
      readLine: answers("e"),
      editor: [Deno.execPath(), "eval", script],
      tempDir,
    });
    const hostile = {
      ...call,
      name: `../../escape/\u001b]0;title\u0007\n${"y".repeat(500)}`,
    };
    assert.deepEqual(await prompter.edit(hostile, response, signal), {
      kind: "edit",
      content: '{"edited": true}',
    });
    assert.deepEqual(await prompter.approveRun(hostile, "ask", signal), {
      kind: "edit",
      arguments: { edited: true },
    });
    const paths = (await Deno.readTextFile(seen)).trimEnd().split("\n");
    assert.equal(paths.length, 2);
    for (const path of paths) {
      assert.ok(path.startsWith(`${tempDir}/spillway-`), path);
      const name = path.slice(tempDir.length + 1);
      assert.match(name, /^spillway-_\._\.\._escape___0_title__y+-(arguments-)?[^/]+\.txt$/);
      assert.ok(name.length < 128, `${name.length} characters`);
    }
    assert.match(paths[1] ?? "", /-arguments-/);
    // Both files were removed once read back.
    assert.deepEqual([...Deno.readDirSync(tempDir)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
