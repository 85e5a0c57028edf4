/**
 * One layer the loader looked at, read or not. `spillway config check`
 * lists them so a user sees which files counted and which were absent.
 *
 * @module
 */

/** Which layer of the stack a source is. */
export type ConfigSourceKind =
  | "default"
  | "user"
  | "workspace"
  | "file"
  | "cfg"
  | "model"
  | "inline";

/** One layer the loader looked at, in layering order (later wins). */
export interface ConfigSource {
  /** Which layer: built-in defaults, user file, workspace file, `--config`, `--cfg`, `--model`, inline text. */
  readonly kind: ConfigSourceKind;
  /** The origin label values of this layer carry: `"default"`, the path as given, `"--cfg"`, or the `parseConfig` source name. */
  readonly label: string;
  /** Whether the layer exists (optional user and workspace files may be absent). */
  readonly present: boolean;
  /** For `--cfg`: the assignment as given, e.g. `conversation.tools.'*'.run=ask`; for `--model`, the id. */
  readonly assignment?: string;
}
