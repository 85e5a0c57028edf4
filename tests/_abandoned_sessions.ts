/**
 * Test and bench helper: clients that open a `spillway serve --http`
 * session, make one call in it and go away without ending it (as a client
 * that crashed or lost its network does), and what the gateway process
 * holds meanwhile: its file descriptors (those under a folder apart) and
 * its memory, read from `/proc` (Linux only).
 *
 * @module
 */

import { procStatusBytes } from "./_raw_http.ts";

/** The headers of every request of `token`'s clients. */
function headers(token: string, sessionId?: string): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(sessionId === undefined ? {} : {
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
    }),
  };
}

async function post(url: URL, token: string, body: unknown, sessionId?: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: headers(token, sessionId),
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status}: ${text}`);
  return { response, text };
}

/**
 * Opens one session (initialize, initialized), calls `tool` with `args`
 * once and leaves; resolves with the session id and the call's answer (the
 * raw SSE text).
 */
export async function abandonedSession(
  url: URL,
  token: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ readonly id: string; readonly answer: string }> {
  const { response } = await post(url, token, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "abandoning-client", version: "1" },
    },
  });
  const id = response.headers.get("mcp-session-id");
  if (id === null) throw new Error("no session id in the initialize answer");
  await post(url, token, { jsonrpc: "2.0", method: "notifications/initialized" }, id);
  const { text } = await post(url, token, {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: tool, arguments: args },
  }, id);
  return { id, answer: text };
}

/** Runs `count` {@linkcode abandonedSession}s, `concurrency` at a time; resolves with their ids. */
export async function abandonSessions(
  url: URL,
  token: string,
  count: number,
  options: {
    readonly concurrency: number;
    readonly tool: string;
    readonly args?: Record<string, unknown>;
  },
): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const { id, answer } = await abandonedSession(url, token, options.tool, options.args ?? {});
      if (!answer.includes('"result"')) throw new Error(`the call failed: ${answer.slice(0, 300)}`);
      ids.push(id);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return ids;
}

/** The open file descriptors of process `pid`: how many, and the paths of those under `dir`. */
export async function openFiles(
  pid: number,
  dir: string,
): Promise<{ readonly count: number; readonly under: readonly string[] }> {
  // Read by `find`: Deno lets a test read /proc/<pid> only under --allow-all.
  const { stdout } = await new Deno.Command("find", {
    args: [`/proc/${pid}/fd`, "-mindepth", "1", "-printf", "%l\\n"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const targets = new TextDecoder().decode(stdout).split("\n").filter((line) => line !== "");
  return { count: targets.length, under: targets.filter((target) => target.startsWith(dir)) };
}

/** The resident memory of `pid` now, in MB. */
export async function rssMb(pid: number): Promise<number> {
  return (await procStatusBytes(pid, "VmRSS")) / (1024 * 1024);
}

/**
 * Calls `probe` until `done` holds for what it returns, at most `timeoutMs`
 * (then it fails, saying what the last probe saw): a wait for a condition
 * of another process that sends no event of its own.
 */
export async function until<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 10;; wait = Math.min(wait * 2, 200)) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`${what}: not within ${timeoutMs} ms; last seen ${JSON.stringify(value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
