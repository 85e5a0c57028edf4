/**
 * The inspector: a page on loopback that draws the machines and replays an
 * inspection file (`--inspect FILE`), following it while a run still
 * writes it. Everything it needs is served from here: the page, its script
 * and styles, and Mermaid's own browser bundle, read from Deno's npm cache
 * (no CDN: it works offline). The page asks for the view at a step
 * (`view.json?step=N`) and listens to `events`, server-sent events that say
 * how many steps there are each time the file grows: while a page listens,
 * the file's folder is watched (no polling), and the watch ends with the
 * last page or the server.
 *
 * @module
 */

import { dirname, resolve } from "node:path";
import { reasonText } from "../errors/reason_text.ts";
import { EventStreams } from "./_event_streams.ts";
import { machineMermaid, SPILLWAY_MACHINES } from "./machines_markdown.ts";
import { FileTail } from "./file_tail.ts";
import { InspectionReplay } from "./inspection_replay.ts";
import type { InspectorView } from "./inspector_view.ts";
import pageHtml from "./inspector_page/index.html" with { type: "text" };
import pageScript from "./inspector_page/inspector.js" with { type: "text" };
import timelineScript from "./inspector_page/timeline.js" with { type: "text" };
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
  options.signal?.addEventListener("abort", () => follower.close(), { once: true });
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
    finished: server.finished.finally(() => follower.close()),
    shutdown: () => {
      // Open event streams would keep the server from finishing: they end first.
      follower.close();
      return server.shutdown();
    },
  };
}

/** The replay of the file, brought up to date on each ask. */
class Follower {
  readonly #tail: FileTail | undefined;
  #replay = new InspectionReplay();
  #missing = false;
  /** One read at a time: two asks at once must not read the same bytes twice. */
  #reading: Promise<void> = Promise.resolve();
  readonly #streams = new EventStreams();
  #watcher: Deno.FsWatcher | undefined;
  /** The file changed while a read ran: read once more after it. */
  #dirty = false;
  #told = -1;

  constructor(file: string | undefined) {
    this.#tail = file === undefined ? undefined : new FileTail(file);
  }

  /** The page's event stream: how many steps there are now, then each time that changes. */
  async events(): Promise<Response> {
    await this.#read();
    this.#watch();
    this.#told = this.#replay.steps;
    return this.#streams.open({ event: "steps", data: this.#said() });
  }

  /** Ends every event stream and the watch. */
  close(): void {
    this.#streams.close();
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  #said(): { steps: number; missing: boolean } {
    return { steps: this.#replay.steps, missing: this.#missing };
  }

  #watch(): void {
    if (this.#tail === undefined || this.#watcher !== undefined) return;
    // The folder, not the file: a file that does not exist yet, or is written anew, is seen too.
    const path = resolve(this.#tail.path);
    const watcher = Deno.watchFs(dirname(path), { recursive: false });
    this.#watcher = watcher;
    (async () => {
      for await (const event of watcher) {
        if (event.paths.some((changed) => resolve(changed) === path)) this.#changed();
      }
    })().catch(() => {});
    // What was written between the last read and the watch's start is read now.
    this.#changed();
  }

  #changed(): void {
    if (this.#dirty) return;
    this.#dirty = true;
    this.#reading.then(async () => {
      this.#dirty = false;
      await this.#read();
      if (this.#streams.size === 0) return this.close();
      if (this.#replay.steps === this.#told) return;
      this.#told = this.#replay.steps;
      this.#streams.send("steps", this.#said());
    }).catch(() => {});
  }

  #read(): Promise<void> {
    const read = this.#reading.then(() => this.#catchUp());
    this.#reading = read.catch(() => {});
    return read;
  }

  async view(step: number | undefined): Promise<InspectorViewReply> {
    await this.#read();
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
    case "/timeline.js":
      return reply(timelineScript, TYPES.js);
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
          session: machineMermaid("session", "LR"),
          // Every machine, for the page's list of them.
          machines: Object.fromEntries(
            Object.keys(SPILLWAY_MACHINES).map((name) => [name, machineMermaid(name)]),
          ),
        }),
        TYPES.json,
      );
    case "/events":
      return await follower.events();
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
