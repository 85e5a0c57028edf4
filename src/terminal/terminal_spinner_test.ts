import assert from "node:assert/strict";
import { TerminalSpinner } from "./terminal_spinner.ts";

/** A spinner on a fake clock and a hand-driven timer. */
function fake(colour = false) {
  let now = 0;
  let written = "";
  let timers = 0;
  const spinner = new TerminalSpinner({
    write: (text) => {
      written += text;
    },
    colour,
    now: () => now,
    every: () => {
      timers++;
      return () => timers--;
    },
  });
  return {
    spinner,
    at: (ms: number) => {
      now = ms;
    },
    take: () => {
      const text = written;
      written = "";
      return text;
    },
    timers: () => timers,
  };
}

const slow = { id: "c1", name: "cargo_test", arguments: {} };
const other = { id: "c2", name: "fs_read_file", arguments: {} };

Deno.test("TerminalSpinner shows a call only after a second, with its name and time, and erases it", () => {
  const t = fake();
  t.spinner.started(slow);
  assert.equal(t.timers(), 1);
  t.at(999);
  t.spinner.render();
  assert.equal(t.take(), "");
  t.at(1000);
  t.spinner.render();
  assert.equal(t.take(), "\r\x1b[2K⠋ cargo_test running, 1.0 s");
  t.at(2340);
  t.spinner.started(other);
  t.spinner.render();
  assert.equal(t.take(), "\r\x1b[2K⠙ cargo_test running, 2.3 s (+1 more)");
  t.spinner.finished("c1");
  assert.equal(t.take(), "\r\x1b[2K");
  assert.equal(t.timers(), 1, "fs_read_file still runs");
  t.spinner.finished("c2");
  assert.equal(t.timers(), 0);
  assert.equal(t.take(), "");
});

Deno.test("TerminalSpinner colours only when asked, and stays away while paused", () => {
  const t = fake(true);
  t.spinner.started(slow);
  t.at(1500);
  t.spinner.render();
  assert.equal(t.take(), "\r\x1b[2K\x1b[36m⠋\x1b[0m cargo_test running, 1.5 s");
  const resume = t.spinner.pause();
  assert.equal(t.take(), "\r\x1b[2K");
  t.spinner.render();
  assert.equal(t.take(), "");
  resume();
  resume(); // once only
  t.spinner.render();
  assert.match(t.take(), /cargo_test running, 1\.5 s$/);
  t.spinner.stop();
  assert.equal(t.take(), "\r\x1b[2K");
  assert.equal(t.timers(), 0);
});

Deno.test("TerminalSpinner.wrap() erases the line before other output", () => {
  const t = fake();
  let out = "";
  const io = t.spinner.wrap({
    stdout: (text: string) => {
      out += `[out:${text}]`;
    },
    stderr: (text: string) => {
      out += `[err:${text}]`;
    },
  });
  t.spinner.started(slow);
  t.at(1200);
  t.spinner.render();
  t.take();
  io.stdout("result\n");
  assert.equal(t.take(), "\r\x1b[2K");
  assert.equal(out, "[out:result\n]");
  io.stderr("notice\n");
  assert.equal(t.take(), "", "nothing drawn, nothing to erase");
});

Deno.test("TerminalSpinner holds wrapped output while a prompt is open, then prints it in order", () => {
  const t = fake();
  let out = "";
  const io = t.spinner.wrap({
    stdout: (text: string) => {
      out += `[out:${text}]`;
    },
    stderr: (text: string) => {
      out += `[err:${text}]`;
    },
  });
  const resume = t.spinner.pause();
  io.stdout("result\n");
  io.stderr("notice\n");
  assert.equal(out, "");
  const inner = t.spinner.pause(); // a second prompt queued behind the first
  resume();
  assert.equal(out, "", "still held: a prompt is open");
  inner();
  assert.equal(out, "[out:result\n][err:notice\n]");
  io.stdout("after\n");
  assert.equal(out, "[out:result\n][err:notice\n][out:after\n]");
});

Deno.test("TerminalSpinner with drawing off draws nothing and starts no timer, but still holds output", () => {
  const t = fake();
  const quiet = new TerminalSpinner({
    write: () => assert.fail("drew"),
    draw: false,
    every: () => assert.fail("timer"),
  });
  quiet.started(slow);
  quiet.render();
  let out = "";
  const io = quiet.wrap({ stdout: (text: string) => (out += text), stderr: () => {} });
  const resume = quiet.pause();
  io.stdout("held");
  assert.equal(out, "");
  quiet.stop();
  assert.equal(out, "held", "stop() prints what was held");
  resume();
  assert.equal(t.timers(), 0);
});

Deno.test("TerminalSpinner shows a hostile tool name inert and on one line; its own escapes stay", () => {
  const t = fake(true);
  const name = "x\x1b]0;pwned\x07\x1b[2J\x9b1m\nfake\u202Etxt.exe";
  t.spinner.started({ id: "c1", name, arguments: {} });
  t.at(1000);
  t.spinner.render();
  const line = t.take();
  assert.equal(
    line,
    "\r\x1b[2K\x1b[36m⠋\x1b[0m x␛]0;pwned\\x07␛[2J\\x9b1m\\x0afake\\u202etxt.exe running, 1.0 s",
  );
  // After the spinner's own erase and colour, nothing a terminal acts on, not even a newline.
  const shown = line.slice("\r\x1b[2K\x1b[36m⠋\x1b[0m".length);
  // deno-lint-ignore no-control-regex
  const raw = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
  assert.doesNotMatch(shown, raw, `raw control in ${JSON.stringify(shown)}`);
});
