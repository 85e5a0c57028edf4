/**
 * "Did you mean …?" for names a person typed: the known name closest to a
 * misspelled one, by edit distance, when it is close enough to be a typo
 * rather than a different name.
 *
 * @module
 */

/**
 * The candidate closest to `name`, or `undefined` when none is close: at
 * most a third of the longer name's characters differ (at least one edit is
 * always allowed). Edits are insertions, deletions, substitutions and swaps
 * of two neighbours; case differences count as a single edit for the whole
 * name. Ties go to the earlier candidate.
 *
 * @param name what was typed
 * @param candidates the names that exist
 * @returns the suggestion, if any
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { closestName } from "./closest_name.ts";
 * assert.equal(closestName("fs_lst_files", ["fs_read_file", "fs_list_files"]), "fs_list_files");
 * assert.equal(closestName("cargo_test", ["fs_read_file"]), undefined);
 * ```
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const distance = candidate.toLowerCase() === name.toLowerCase()
      ? 1
      : editDistance(name, candidate);
    const allowed = Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 3));
    if (distance <= allowed && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance: Levenshtein plus swaps of adjacent characters. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const above = rows[i - 1] ?? [];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(
        (above[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (above[j - 1] ?? 0) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      }
      row.push(distance);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? 0;
}
