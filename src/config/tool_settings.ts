/**
 * What one `[conversation.tools.<name>]` table (or the `'*'` table) sets,
 * after validation, each value with its origin. Layers merge key by key, so
 * a `--cfg` flag can change one key of a tool the workspace file defines.
 *
 * @module
 */

import type { SizeThreshold } from "../size/size_threshold.ts";
import type { TruncationStrategy } from "../size/truncation.ts";
import type { ConfigValue } from "./config_value.ts";
import type { InlineResults, ResultMode, ResultsFileLink, RunMode } from "./tool_vocabulary.ts";

/** The validated keys one tool table sets; absent keys fall through to `'*'`. */
export interface ToolSettings {
  /** `source` as written (`"builtin"`, `"local"`, `"mcp.<server>[.<tool>]"`). */
  readonly source?: ConfigValue<string>;
  /** `command`: the argv of a local tool. */
  readonly command?: ConfigValue<readonly string[]>;
  /** `timeout` in seconds. */
  readonly timeout?: ConfigValue<number>;
  /** `run`. */
  readonly run?: ConfigValue<RunMode>;
  /** `result`. */
  readonly result?: ConfigValue<ResultMode>;
  /** `size_threshold`. */
  readonly size_threshold?: ConfigValue<SizeThreshold>;
  /** `truncation`: which end(s) a cut keeps. */
  readonly truncation?: ConfigValue<TruncationStrategy>;
  /** `truncation_split`: the head's percent of the kept bytes under `head_tail`. */
  readonly truncation_split?: ConfigValue<number>;
  /** `spill`: whether the whole output is kept in the blob store for `read_tool_output`. */
  readonly spill?: ConfigValue<boolean>;
  /** `cancellation_response`. */
  readonly cancellation_response?: ConfigValue<string>;
  /** `style.inline_results`. */
  readonly "style.inline_results"?: ConfigValue<InlineResults>;
  /** `style.results_file_link`. */
  readonly "style.results_file_link"?: ConfigValue<ResultsFileLink>;
  /** `description`, advertised to the model. */
  readonly description?: ConfigValue<string>;
}
