/**
 * A spawned server's stderr as text: the sink that takes it (the
 * `StderrWindow` that shows it within a budget, or a test's
 * collector), and the loop that feeds a pipe to it, decoding UTF-8 across
 * chunk boundaries.
 *
 * @module
 */

/** Takes a server's stderr as decoded text, and hears when it ends (once per connection). */
export interface StderrSink {
  /** The next text the server wrote. */
  write(text: string): void;
  /** The server's stderr ended: it exited or was stopped. */
  end(): void;
}

export /** Streams a pipe to a text sink, decoding UTF-8 across chunk boundaries, then ends it. */
async function pipeText(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  sink: StderrSink,
): Promise<void> {
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      if (text !== "") sink.write(text);
    }
  } catch {
    // A broken stderr pipe only loses diagnostics.
  }
  const rest = decoder.decode();
  if (rest !== "") sink.write(rest);
  sink.end();
}
