/**
 * The terminal as the host writes to it: two text writers and whether a
 * person is looking. Commands pass their `CommandIo`, which has this shape;
 * tests pass a capturing one.
 *
 * @module
 */

/** Where the host writes. */
export interface TerminalIo {
  /** Writes text to standard output as is (callers add newlines). */
  readonly stdout: (text: string) => void;
  /** Writes text to standard error as is (callers add newlines). */
  readonly stderr: (text: string) => void;
  /** Whether stdout is an interactive terminal (OSC 8 links). Default false. */
  readonly isTerminal?: boolean;
}
