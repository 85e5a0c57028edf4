import assert from "node:assert/strict";
import { join } from "node:path";
import { serveInspector } from "./inspector_server.ts";

async function withServer(
  file: string | undefined,
  body: (url: string) => Promise<void>,
): Promise<void> {
  const server = serveInspector({ port: 0, ...(file === undefined ? {} : { file }) });
  try {
    await body(server.url);
  } finally {
    await server.shutdown();
  }
}

async function get(url: string) {
  const response = await fetch(url);
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    body: await response.text(),
  };
}

/** A GET of `/` with the Host header `host`, over a plain connection; the whole reply. */
async function rawGet(url: URL, host: string): Promise<string> {
  const connection = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  await connection.write(
    new TextEncoder().encode(`GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
  );
  return await new Response(connection.readable).text();
}

const TURN_REQUESTING =
  '{"type":"@xstate.snapshot","actor":"turn","state":"requesting","status":"active"}\n';
const TURN_CLOSING =
  '{"type":"@xstate.snapshot","actor":"turn","state":"closing","status":"active"}\n';

Deno.test("the inspector serves its page, its script, its styles, Mermaid's own bundle and the diagrams", async () => {
  await withServer(undefined, async (url) => {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await get(url);
    assert.equal(page.type, "text/html; charset=utf-8");
    for (const asset of ["timeline.js", "inspector.js", "inspector.css"]) {
      assert.ok(page.body.includes(`"${asset}"`), asset);
      assert.equal((await get(url + asset)).status, 200, asset);
    }
    // Mermaid is loaded by the script, once the run is shown.
    assert.ok((await get(url + "inspector.js")).body.includes('loadScript("mermaid.min.js")'));
    assert.doesNotMatch(page.body, /https?:\/\//, "nothing from elsewhere");
    const mermaid = await get(url + "mermaid.min.js");
    assert.equal(mermaid.type, "text/javascript; charset=utf-8");
    assert.ok(mermaid.body.length > 1_000_000, `${mermaid.body.length} characters`);
    const diagrams = JSON.parse((await get(url + "diagrams.json")).body);
    assert.match(diagrams.turn, /^stateDiagram-v2\n/);
    assert.match(diagrams.toolCall, /^stateDiagram-v2\n {2}direction LR\n/);
    assert.match(diagrams.upstreamConnection, /^stateDiagram-v2\n {2}direction LR\n/);
    assert.match(diagrams.session, /^stateDiagram-v2\n {2}direction LR\n/);
    const view = JSON.parse((await get(url + "view.json")).body);
    assert.equal(view.file, undefined);
    assert.equal(view.steps, 0);
  });
});

Deno.test("the inspector follows its file as it grows, and answers any step", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "inspect.jsonl");
    await withServer(file, async (url) => {
      const waiting = JSON.parse((await get(url + "view.json")).body);
      assert.equal(waiting.missing, true);
      assert.equal(waiting.file, file);
      await Deno.writeTextFile(file, TURN_REQUESTING);
      assert.equal(JSON.parse((await get(url + "view.json")).body).said, "turn → requesting");
      await Deno.writeTextFile(file, TURN_CLOSING, { append: true });
      const last = JSON.parse((await get(url + "view.json")).body);
      assert.deepEqual([last.step, last.steps, last.active], [2, 2, ["closing"]]);
      const first = JSON.parse((await get(url + "view.json?step=1")).body);
      assert.deepEqual([first.step, first.active], [1, ["requesting"]]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the inspector refuses other hosts, other methods, bad steps and unknown paths", async () => {
  await withServer(undefined, async (url) => {
    // fetch() sets Host itself: a page that a rebound name led here would send its own.
    const other = await rawGet(new URL(url), "inspector.example:80");
    assert.match(other, /^HTTP\/1\.1 421 /);
    assert.match(other, /answers to 127\.0\.0\.1:\d+ only, not inspector\.example:80\n$/);
    const posted = await fetch(url + "view.json", { method: "POST", body: "{}" });
    assert.equal(posted.status, 405);
    assert.equal(await posted.text(), "POST is not served here (GET only)\n");
    const bad = await get(url + "view.json?step=two");
    assert.deepEqual([bad.status, bad.body], [400, "step=two is not a whole number\n"]);
    const missing = await get(url + "secrets.txt");
    assert.deepEqual([missing.status, missing.body], [404, "nothing at /secrets.txt\n"]);
  });
});

Deno.test("a file the inspector cannot read is said to the page", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await withServer(dir, async (url) => {
      const reply = await get(url + "view.json");
      assert.equal(reply.status, 500);
      assert.match(reply.body, /^the inspector could not answer: /);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Reads server-sent events from `response` until `until` holds for the `steps` events so far. */
async function stepsEvents(
  response: Response,
  until: (steps: number[]) => boolean,
): Promise<number[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const steps: number[] = [];
  let text = "";
  try {
    while (!until(steps)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
      const frames = text.split("\n\n");
      text = frames.pop() ?? "";
      for (const frame of frames) {
        const data = /^event: steps\ndata: (.*)$/m.exec(frame)?.[1];
        if (data !== undefined) steps.push(JSON.parse(data).steps);
      }
    }
  } finally {
    await reader.cancel();
  }
  return steps;
}

Deno.test("the inspector tells a listening page, by server-sent events, each time its file grows", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "inspect.jsonl");
    await Deno.writeTextFile(file, TURN_REQUESTING);
    await withServer(file, async (url) => {
      const response = await fetch(url + "events");
      assert.equal(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
      const grown = Deno.writeTextFile(file, TURN_CLOSING, { append: true });
      const steps = await stepsEvents(response, (seen) => seen.at(-1) === 2);
      await grown;
      assert.deepEqual(steps, [1, 2], "the steps there were, then the new count");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the inspector shuts down with a page still listening to its events", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const server = serveInspector({ port: 0, file: join(dir, "inspect.jsonl") });
    const response = await fetch(server.url + "events");
    const body = response.text();
    await server.shutdown();
    assert.match(await body, /^event: steps\ndata: \{"steps":0,"missing":true\}\n\n$/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
