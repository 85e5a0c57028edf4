/** Path helpers for tests. */
export { join } from "node:path";
import { pathToFileURL } from "node:url";

/** The file URL of an absolute path, as a string. */
export function toFileUrl(path: string): string {
  return pathToFileURL(path).href;
}
