/**
 * Test helpers for what `fetch` will not send: requests written byte by
 * byte on a TCP connection (any `Host`, a body that never ends, headers
 * that stop halfway), and a process's memory read from `/proc`.
 *
 * @module
 */

/** A response as read off the wire. */
export interface RawResponse {
  readonly status: number;
  /** Header names lower-cased. */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
}

const encoder = new TextEncoder();

/** Parses what a server sent (status line, headers, then the body as it came, chunked or not). */
export function parseResponse(bytes: Uint8Array): RawResponse {
  const text = new TextDecoder().decode(bytes);
  const end = text.indexOf("\r\n\r\n");
  const head = end === -1 ? text : text.slice(0, end);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) {
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
  }
  let body = end === -1 ? "" : text.slice(end + 4);
  if (headers.get("transfer-encoding") === "chunked") body = unchunked(body);
  return { status, headers, body };
}

function unchunked(text: string): string {
  let out = "";
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf("\r\n", at);
    if (lineEnd === -1) return out;
    const size = parseInt(text.slice(at, lineEnd), 16);
    if (!(size > 0)) return out;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * Reads one response from `conn`: to the end of its body (by its
 * `Content-Length`, or its last chunk), or until the server closes.
 */
async function readResponseBytes(conn: Deno.Conn): Promise<Uint8Array> {
  let all = new Uint8Array(0);
  const buffer = new Uint8Array(64 * 1024);
  while (!complete(all)) {
    let n: number | null;
    try {
      n = await conn.read(buffer);
    } catch {
      break; // reset by the server
    }
    if (n === null) break;
    const next = new Uint8Array(all.length + n);
    next.set(all);
    next.set(buffer.subarray(0, n), all.length);
    all = next;
  }
  return all;
}

function complete(bytes: Uint8Array): boolean {
  const text = new TextDecoder().decode(bytes);
  const end = text.indexOf("\r\n\r\n");
  if (end === -1) return false;
  const head = text.slice(0, end).toLowerCase();
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head)?.[1];
  if (length !== undefined) return bytes.length - (end + 4) >= Number(length);
  if (/\r\ntransfer-encoding:\s*chunked/.test(head)) return text.endsWith("0\r\n\r\n");
  return /^http\/1\.[01] (1\d\d|204|304)/.test(head);
}

/**
 * Sends `head` (the request line and headers, without the blank line; a
 * `Connection: close` is added) and `body` on a fresh connection to `url`'s
 * host and port, and reads the answer to its end.
 */
export async function rawRequest(url: URL, head: string, body = ""): Promise<RawResponse> {
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  try {
    await writeAll(conn, encoder.encode(`${head}\r\nConnection: close\r\n\r\n${body}`));
    return parseResponse(await readResponseBytes(conn));
  } finally {
    conn.close();
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
}

/**
 * POSTs a body of `totalBytes` (of `fill`) to `url` in 64 KiB chunks, with
 * `headers` (add `Transfer-Encoding: chunked` or a `Content-Length`), until
 * the server answers or the body is sent; resolves with the answer and how
 * many body bytes went out before it came.
 */
export async function streamBody(
  url: URL,
  headers: readonly string[],
  options: { readonly totalBytes: number; readonly chunked: boolean },
): Promise<{ readonly response: RawResponse; readonly sentBytes: number }> {
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  let answered = false;
  const answer = readResponseBytes(conn).then((bytes) => {
    answered = true;
    return bytes;
  });
  let sent = 0;
  try {
    const head = [`POST ${url.pathname} HTTP/1.1`, `Host: ${url.host}`, ...headers, "", ""];
    await writeAll(conn, encoder.encode(head.join("\r\n")));
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const frame = encoder.encode(`${chunk.length.toString(16)}\r\n`);
    const crlf = encoder.encode("\r\n");
    while (!answered && sent < options.totalBytes) {
      // Once the server answered (or closed), writes fail or no longer matter.
      const wrote = (async () => {
        if (options.chunked) await writeAll(conn, frame);
        await writeAll(conn, chunk);
        if (options.chunked) await writeAll(conn, crlf);
      })();
      const won = await Promise.race([
        wrote.then(() => "wrote", () => "failed"),
        answer.then(() => "answered"),
      ]);
      if (won !== "wrote") break;
      sent += chunk.length;
    }
    if (!answered && options.chunked) {
      await writeAll(conn, encoder.encode("0\r\n\r\n")).catch(() => {});
    }
    return { response: parseResponse(await answer), sentBytes: sent };
  } finally {
    conn.close();
  }
}

/** One value of `/proc/<pid>/status` in bytes (`VmRSS`, `VmHWM`), read with `cat`. */
export async function procStatusBytes(pid: number, field: "VmRSS" | "VmHWM"): Promise<number> {
  const output = await new Deno.Command("cat", { args: [`/proc/${pid}/status`] }).output();
  const text = new TextDecoder().decode(output.stdout);
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1];
  if (kb === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kb) * 1024;
}

/**
 * Resets the peak RSS (`VmHWM`) of `pid` to its current RSS (Linux
 * `clear_refs`); `false` when the kernel refused.
 */
export async function resetPeakRss(pid: number): Promise<boolean> {
  const reset = await new Deno.Command("sh", {
    args: ["-c", `echo 5 > /proc/${pid}/clear_refs`],
    stderr: "null",
  }).output();
  return reset.success;
}
