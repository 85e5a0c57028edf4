/**
 * Private to the inspector server: the page's server-sent events. Each
 * open page holds one `text/event-stream` response; `send()` writes an
 * event to all of them, and `close()` ends them all (a server cannot shut
 * down while a stream stays open).
 *
 * @module
 */

const encoder = new TextEncoder();

/** The open event streams of the pages that listen. */
export class EventStreams {
  readonly #open = new Set<ReadableStreamDefaultController<Uint8Array>>();

  /** How many pages listen. */
  get size(): number {
    return this.#open.size;
  }

  /** A response that streams events until the page goes or {@linkcode close} is called; `first` is sent at once. */
  open(first: { readonly event: string; readonly data: unknown }): Response {
    let mine: ReadableStreamDefaultController<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        mine = controller;
        this.#open.add(controller);
        controller.enqueue(frame(first.event, first.data));
      },
      cancel: () => {
        if (mine !== undefined) this.#open.delete(mine);
      },
    });
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
      },
    });
  }

  /** Sends one event to every page. */
  send(event: string, data: unknown): void {
    const bytes = frame(event, data);
    for (const controller of this.#open) controller.enqueue(bytes);
  }

  /** Ends every stream. */
  close(): void {
    for (const controller of this.#open) {
      try {
        controller.close();
      } catch {
        // The page went already.
      }
    }
    this.#open.clear();
  }
}

function frame(event: string, data: unknown): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}
