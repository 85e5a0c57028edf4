/**
 * The builtin tools spillway ships, registered on every
 * {@linkcode BuiltinToolSource} unless it is given its own list.
 *
 * @module
 */

import type { BuiltinTool } from "./builtin_tool.ts";
import { fsListFiles } from "./fs_list_files.ts";
import { fsReadFile } from "./fs_read_file.ts";

/** `fs_list_files` and `fs_read_file`. */
export const BUILTIN_TOOLS: readonly BuiltinTool[] = [fsListFiles, fsReadFile];
