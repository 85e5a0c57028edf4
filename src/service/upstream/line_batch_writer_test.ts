import assert from "node:assert/strict";
import { LineBatchWriter } from "./line_batch_writer.ts";

/** A sink whose writes wait until the test lets each one finish. */
function gatedSink() {
  const chunks: string[] = [];
  const gates: PromiseWithResolvers<void>[] = [];
  const started: PromiseWithResolvers<void>[] = [Promise.withResolvers()];
  const sink = new WritableStream<Uint8Array>({
    write: (chunk) => {
      chunks.push(new TextDecoder().decode(chunk));
      const gate = Promise.withResolvers<void>();
      gates.push(gate);
      started.at(-1)?.resolve();
      started.push(Promise.withResolvers());
      return gate.promise;
    },
  });
  return {
    sink,
    chunks,
    /** Resolves once write number `n` (from 0) has started. */
    writeStarted: async (n: number) => {
      while (chunks.length <= n) await started.at(-1)?.promise;
    },
    finish: (n: number, error?: Error) =>
      error === undefined ? gates[n]?.resolve() : gates[n]?.reject(error),
  };
}

Deno.test("LineBatchWriter writes a lone line at once, and the lines that come meanwhile together, in order", async () => {
  const { sink, chunks, writeStarted, finish } = gatedSink();
  const lines = new LineBatchWriter(sink.getWriter());
  const first = lines.write("1\n");
  await writeStarted(0);
  const rest = ["2\n", "3\n", "4\n"].map((line) => lines.write(line));
  assert.deepEqual(chunks, ["1\n"]);
  finish(0);
  await first;
  await writeStarted(1);
  const last = lines.write("5\n");
  finish(1);
  await Promise.all(rest);
  await writeStarted(2);
  finish(2);
  await last;
  await lines.settled();
  assert.deepEqual(chunks, ["1\n", "2\n3\n4\n", "5\n"]);
});

Deno.test("LineBatchWriter rejects the lines of a failed write with its error, and settles", async () => {
  const { sink, writeStarted, finish } = gatedSink();
  const lines = new LineBatchWriter(sink.getWriter());
  const first = lines.write("1\n");
  await writeStarted(0);
  const second = lines.write("2\n");
  const broken = new Error("broken pipe");
  finish(0, broken);
  await assert.rejects(first, broken);
  // The stream is errored: the next batch fails too, and nothing hangs.
  await assert.rejects(second);
  await lines.settled();
  await assert.rejects(lines.write("3\n"));
});
