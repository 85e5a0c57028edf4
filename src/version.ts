/**
 * spillway's version, as `spillway --version` prints it. deno.json and
 * package.json carry the same string (a test holds the three together).
 *
 * @module
 */

/** The version of this spillway, e.g. `"0.1.0"`. */
export const SPILLWAY_VERSION = "0.1.0";
