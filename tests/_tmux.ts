/**
 * A real pseudo-terminal for tests: a private tmux server running a shell,
 * keys typed into it, and the screen read back. Waiting is always for
 * something on the screen (with a generous deadline as a safety net, never
 * a sleep that a test relies on).
 *
 * @module
 */

/** One tmux session on its own server socket. */
export class TmuxSession {
  readonly #socket: string;
  readonly #dir: string;

  private constructor(socket: string, dir: string) {
    this.#socket = socket;
    this.#dir = dir;
  }

  /**
   * Starts a 160×50 session running `sh` in `cwd` with `env` added.
   *
   * @throws when tmux is not installed
   */
  static async start(cwd: string, env: Record<string, string> = {}): Promise<TmuxSession> {
    const dir = await Deno.makeTempDir({ prefix: "spillway_tmux_" });
    const session = new TmuxSession(`${dir}/socket`, dir);
    const exports = Object.entries(env).map(([k, v]) => `export ${k}=${shellQuote(v)}; `).join("");
    await session.#tmux(
      "new-session",
      "-d",
      "-x",
      "160",
      "-y",
      "50",
      "-c",
      cwd,
      `sh -c ${shellQuote(`${exports}PS1='$ ' exec sh`)}`,
    );
    return session;
  }

  /** Types `text` and presses Enter. */
  async type(text: string): Promise<void> {
    await this.#tmux("send-keys", "-t", "0", "-l", text);
    await this.#tmux("send-keys", "-t", "0", "Enter");
  }

  /** Presses keys by tmux name, e.g. `C-c`. */
  async press(...keys: string[]): Promise<void> {
    await this.#tmux("send-keys", "-t", "0", ...keys);
  }

  /** The screen and its scrollback as text (`escapes`: with colour and style sequences). */
  async screen(escapes = false): Promise<string> {
    const args = ["capture-pane", "-p", "-J", "-t", "0", "-S", "-2000"];
    return await this.#tmux(...(escapes ? [...args, "-e"] : args));
  }

  /**
   * Waits until the screen matches `pattern`; returns the screen.
   *
   * @throws with the screen when it does not within `deadlineMs` (default 60 s)
   */
  async waitFor(pattern: RegExp, deadlineMs = 60_000): Promise<string> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      const screen = await this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) {
        throw new Error(`the terminal never showed ${pattern}; it shows:\n${screen}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Stops the tmux server and everything it runs. */
  async close(): Promise<void> {
    await this.#tmux("kill-server").catch(() => {});
    await Deno.remove(this.#dir, { recursive: true }).catch(() => {});
  }

  async #tmux(...args: string[]): Promise<string> {
    const output = await new Deno.Command("tmux", {
      args: ["-S", this.#socket, ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      throw new Error(`tmux ${args[0]} failed: ${new TextDecoder().decode(output.stderr)}`);
    }
    return new TextDecoder().decode(output.stdout);
  }
}

/** Quotes `text` for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
