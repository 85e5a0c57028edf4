import assert from "node:assert/strict";
import { closestName } from "./closest_name.ts";

const TOOLS = ["fs_list_files", "fs_read_file", "word_count", "cargo_test", "echo"];

Deno.test("closestName() suggests the name one typo away: dropped, added, changed or swapped", () => {
  assert.equal(closestName("fs_lst_files", TOOLS), "fs_list_files");
  assert.equal(closestName("fs_readd_file", TOOLS), "fs_read_file");
  assert.equal(closestName("cargo_tast", TOOLS), "cargo_test");
  assert.equal(closestName("word_cuont", TOOLS), "word_count");
  assert.equal(closestName("Cargo_Test", TOOLS), "cargo_test");
});

Deno.test("closestName() stays quiet when nothing is close, or the name exists", () => {
  assert.equal(closestName("deploy_production", TOOLS), undefined);
  assert.equal(closestName("ls", TOOLS), undefined);
  assert.equal(closestName("echo", TOOLS), undefined);
  assert.equal(closestName("anything", []), undefined);
});

Deno.test("closestName() allows about one edit in three, and prefers the closer of two", () => {
  // Two edits in a 4-letter name is a different name, not a typo.
  assert.equal(closestName("ecol", ["echo"]), undefined);
  assert.equal(closestName("eco", ["echo"]), "echo");
  assert.equal(closestName("fs_read_fil", ["fs_read_files", "fs_read_file"]), "fs_read_file");
  // Ties go to the earlier candidate.
  assert.equal(closestName("ab_c", ["ab_d", "ab_e"]), "ab_d");
});
