/**
 * One command-line argument as `spillway config check` shows it.
 *
 * @module
 */

/** `arg` as it is, when it holds only characters a shell leaves alone; else as a JSON string. */
export function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}
