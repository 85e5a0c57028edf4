/**
 * The inspector: a page on loopback that draws the machines and replays an
 * inspection file (`query --inspect FILE`), following it while a run still
 * writes it. Everything it needs is served from here: the page, its script
 * and styles, and Mermaid's own browser bundle, read from Deno's npm cache
 * (no CDN: it works offline). The page asks for the view at a step
 * (`view.json?step=N`); the file is read on each ask, so a file that grows
 * is followed without anything running in between.
 *
 * @module
 */

import { reasonText } from "../errors/reason_text.ts";
import { machineMermaid, SPILLWAY_MACHINES } from "./machines_markdown.ts";
import { FileTail } from "./file_tail.ts";
import { InspectionReplay } from "./inspection_replay.ts";
import type { InspectorView } from "./inspector_view.ts";
import pageHtml from "./inspector_page/index.html" with { type: "text" };
import pageScript from "./inspector_page/inspector.js" with { type: "text" };
import pageStyles from "./inspector_page/inspector.css" with { type: "text" };

/** The port `spillway inspect --serve` listens on unless told otherwise. */
export const DEFAULT_INSPECTOR_PORT = 7420;

/** Options of {@linkcode serveInspector}. */
export interface InspectorOptions {
  /** The inspection file to replay and follow. Default: none (the page draws the machines only). */
  readonly file?: string;
  /** The port on 127.0.0.1; 0 picks a free one. Default {@linkcode DEFAULT_INSPECTOR_PORT}. */
  readonly port?: number;
  /** Stops the server when it aborts. Default: never (call `shutdown()`). */
  readonly signal?: AbortSignal;
}

/** A running inspector. */
export interface InspectorServer {
  /** Where the page is, e.g. `http://127.0.0.1:7420/`. */
  readonly url: string;
  /** Settles once the server has stopped. */
  readonly finished: Promise<void>;
  /** Stops the server (open requests finish first). */
  shutdown(): Promise<void>;
}

/** What the page is told besides the view: which file it replays, and whether it is there. */
export interface InspectorViewReply extends InspectorView {
  readonly file: string | undefined;
  readonly missing: boolean;
}

/**
 * Starts the inspector on 127.0.0.1.
 *
 * @throws {Deno.errors.AddrInUse} when the port is taken
 */
export function serveInspector(options: InspectorOptions = {}): InspectorServer {
  const follower = new Follower(options.file);
  const server: Deno.HttpServer<Deno.NetAddr> = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? DEFAULT_INSPECTOR_PORT,
    onListen: () => {},
    // A file that cannot be read (permissions, a directory) is said to the page, not logged.
    onError: (error) => text(500, `the inspector could not answer: ${reasonText(error)}`),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  }, (request): Promise<Response> => respond(request, follower, server.addr.port));
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    finished: server.finished,
    shutdown: () => server.shutdown(),
  };
}

/** The replay of the file, brought up to date on each ask. */
class Follower {
  readonly #tail: FileTail | undefined;
  #replay = new InspectionReplay();
  #missing = false;
  /** One read at a time: two asks at once must not read the same bytes twice. */
  #reading: Promise<void> = Promise.resolve();

  constructor(file: string | undefined) {
    this.#tail = file === undefined ? undefined : new FileTail(file);
  }

  async view(step: number | undefined): Promise<InspectorViewReply> {
    const read = this.#reading.then(() => this.#catchUp());
    this.#reading = read.catch(() => {});
    await read;
    return {
      ...this.#replay.viewAt(step),
      file: this.#tail?.path,
      missing: this.#missing,
    };
  }

  async #catchUp(): Promise<void> {
    if (this.#tail === undefined) return;
    const { lines, restarted, missing } = await this.#tail.read();
    this.#missing = missing;
    if (restarted) this.#replay = new InspectionReplay();
    for (const line of lines) this.#replay.addLine(line);
  }
}

let mermaidBundle: Promise<string> | undefined;

/** Mermaid's browser bundle, as the `mermaid` npm package ships it. */
function mermaidScript(): Promise<string> {
  mermaidBundle ??= import("mermaid/dist/mermaid.min.js", { with: { type: "text" } })
    .then((module) => module.default as string);
  return mermaidBundle;
}

const TYPES = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json; charset=utf-8",
};

async function respond(request: Request, follower: Follower, port: number): Promise<Response> {
  // Only this machine's own names: a page elsewhere cannot reach us through a name it controls.
  const host = request.headers.get("host");
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
    return text(421, `this inspector answers to 127.0.0.1:${port} only, not ${host}`);
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return text(405, `${request.method} is not served here (GET only)`);
  }
  const url = new URL(request.url);
  switch (url.pathname) {
    case "/":
      return reply(pageHtml, TYPES.html);
    case "/inspector.js":
      return reply(pageScript, TYPES.js);
    case "/inspector.css":
      return reply(pageStyles, TYPES.css);
    case "/mermaid.min.js":
      return reply(await mermaidScript(), TYPES.js, "max-age=86400");
    case "/diagrams.json":
      return reply(
        JSON.stringify({
          turn: machineMermaid("turn"),
          toolCall: machineMermaid("toolCall", "LR"),
          upstreamConnection: machineMermaid("upstreamConnection", "LR"),
          // Every machine, for the page's list of them.
          machines: Object.fromEntries(
            Object.keys(SPILLWAY_MACHINES).map((name) => [name, machineMermaid(name)]),
          ),
        }),
        TYPES.json,
      );
    case "/view.json": {
      const asked = url.searchParams.get("step");
      const step = asked === null ? undefined : Number(asked);
      if (step !== undefined && !Number.isSafeInteger(step)) {
        return text(400, `step=${asked} is not a whole number`);
      }
      return reply(JSON.stringify(await follower.view(step)), TYPES.json);
    }
    default:
      return text(404, `nothing at ${url.pathname}`);
  }
}

function reply(body: string, type: string, cache = "no-store"): Response {
  return new Response(body, { headers: { "content-type": type, "cache-control": cache } });
}

function text(status: number, message: string): Response {
  return new Response(message + "\n", {
    status,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}
