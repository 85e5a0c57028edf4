/**
 * Another process holding a conversation open, for tests of what a second
 * writer sees: a `deno eval` child that opens the conversation through the
 * file store (taking its writer lock) and waits until it is killed.
 *
 * @module
 */

const STORE_URL = new URL("../stream/file_stream_store.ts", import.meta.url).href;

/** A child process holding a conversation's writer lock. */
export interface ConversationHolder {
  /** The child's process id (the lock's error names it). */
  readonly pid: number;
  /** Kills the child (SIGKILL: the OS drops its lock) and waits for it to exit. */
  kill(): Promise<void>;
}

/**
 * Starts a process that opens conversation `id` of the file store at `root`
 * and holds it; resolves once it holds the lock.
 *
 * @throws when the child exits before holding it; the message has its stderr
 *   (e.g. that the conversation is open in another process)
 */
export async function holdConversation(root: string, id: string): Promise<ConversationHolder> {
  const code = `
    import { FileStreamStore } from ${JSON.stringify(STORE_URL)};
    await new FileStreamStore(${JSON.stringify(root)}).open(${JSON.stringify(id)});
    console.log("holding");
    setTimeout(() => {}, 1 << 30); // held until killed
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", code],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("holding\n")) {
    const { value, done } = await reader.read();
    if (done) {
      const why = await new Response(child.stderr).text();
      await child.status;
      throw new Error(`the holder exited before locking: ${why}`);
    }
    seen += value;
  }
  await reader.cancel();
  await child.stderr.cancel();
  return {
    pid: child.pid,
    kill: async () => {
      child.kill("SIGKILL");
      await child.status;
    },
  };
}
