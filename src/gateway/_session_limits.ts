/**
 * What each `spillway serve` session lists and enforces under its client
 * ceiling (see {@linkcode sessionCeiling}): the tools with their result-size
 * hints, and each tool's policy with the ceiling as its threshold where
 * that is lower, so the hint a client reads is the limit its results are
 * cut to. Both are computed once per ceiling (sessions of one client share
 * them) and the tools anew when the tool list changes. A client whose own
 * ceiling is below what the configuration allows is told about once.
 *
 * @module
 */

import type { SpillwayConfig } from "../config/spillway_config.ts";
import type { PolicyFor, ToolPolicy } from "../machines/turn_dependencies.ts";
import { type OutputSchema, outputSchemaOf } from "../review/output_schema.ts";
import type { Tool } from "../service/sdk.ts";
import type { ToolDefinition } from "../service/tool_source.ts";
import { ByteSize } from "../size/byte_size.ts";
import type { SizeThreshold } from "../size/size_threshold.ts";
import { listedTool } from "./listed_tools.ts";
import { resultLimit } from "./result_limit.ts";
import { type SessionCeiling, sessionCeiling } from "./session_ceiling.ts";

/** What a client announced in `initialize`. */
export interface ClientInfo {
  readonly name: string;
  readonly version: string;
}

/** Options of {@linkcode SessionLimits}. */
export interface SessionLimitsOptions {
  /** Descriptions and `[serve.client_ceilings]`. */
  readonly config: SpillwayConfig;
  /** The tools' own policies. */
  readonly policyFor: PolicyFor;
  /** The tools served now. */
  readonly definitions: () => readonly ToolDefinition[];
  /** `--client-ceiling`, over every session. */
  readonly flag: ByteSize | undefined;
  /** Where the one line per client goes. */
  readonly warn: (message: string) => void;
}

/** The limits of every session, by ceiling. */
export class SessionLimits {
  readonly #options: SessionLimitsOptions;
  readonly #configured: ReadonlyMap<string, ByteSize>;
  /** The tools as listed, by ceiling. */
  readonly #listed = new Map<string, Tool[]>();
  /** Each tool's policy, by ceiling, then by tool. */
  readonly #policies = new Map<string, Map<string, ToolPolicy>>();
  /** The output schemas of the tools with one: their results must carry conforming structured content. */
  #schemas: ReadonlyMap<string, OutputSchema> | undefined;
  /** The clients already told. */
  readonly #told = new Set<string>();

  constructor(options: SessionLimitsOptions) {
    this.#options = options;
    this.#configured = new Map(
      [...options.config.serve().clientCeilings].map(([name, { value }]) => [name, value]),
    );
  }

  /** The ceiling of a session whose client announced `client` (`undefined`: not yet, or never). */
  ceilingOf(client: { readonly name: string } | undefined): SessionCeiling | undefined {
    return sessionCeiling(client?.name, { configured: this.#configured, flag: this.#options.flag });
  }

  /** The tools as a session under `ceiling` sees them: each hint is the limit it enforces. */
  tools(ceiling: SessionCeiling | undefined): Tool[] {
    const key = keyOf(ceiling);
    let tools = this.#listed.get(key);
    if (tools === undefined) {
      const { config, policyFor } = this.#options;
      tools = this.#options.definitions().map((definition) =>
        listedTool(definition, {
          description: config.tool(definition.name).description(),
          limitBytes: resultLimit(policyFor(definition.name).sizeThreshold, ceiling).bytes,
        })
      );
      this.#listed.set(key, tools);
    }
    return tools;
  }

  /**
   * A tool's policy in a session under `ceiling`: its own, with the ceiling
   * as its threshold where that is lower, and the output schema its
   * results must conform to.
   */
  policy(ceiling: SessionCeiling | undefined, tool: string): ToolPolicy {
    const key = keyOf(ceiling);
    let policies = this.#policies.get(key);
    if (policies === undefined) this.#policies.set(key, policies = new Map());
    let policy = policies.get(tool);
    if (policy === undefined) {
      policy = this.#options.policyFor(tool);
      const limit = resultLimit(policy.sizeThreshold, ceiling);
      if (limit.cause === "client ceiling") {
        policy = {
          ...policy,
          sizeThreshold: limit.threshold,
          thresholdCause: "client ceiling",
          ...(limit.client === undefined ? {} : { thresholdClient: limit.client }),
        };
      }
      policies.set(tool, policy);
    }
    this.#schemas ??= new Map(
      this.#options.definitions().flatMap((tool) =>
        tool.outputSchema === undefined ? [] : [[tool.name, outputSchemaOf(tool.outputSchema)]]
      ),
    );
    const outputSchema = this.#schemas.get(tool);
    return outputSchema === undefined ? policy : { ...policy, outputSchema };
  }

  /** The tool list changed: list it anew. */
  toolsChanged(): void {
    this.#listed.clear();
    this.#schemas = undefined;
  }

  /**
   * Says once per client, when its own ceiling is below what the
   * configuration allows (the highest `size_threshold`, the
   * `--client-ceiling`), that its sessions' results are cut to it.
   */
  tell(client: ClientInfo | undefined): void {
    const ceiling = this.ceilingOf(client);
    if (client === undefined || ceiling?.client === undefined || this.#told.has(client.name)) {
      return;
    }
    const { flag, policyFor } = this.#options;
    const above: string[] = [];
    const highest = this.#options.definitions()
      .map(({ name }) => policyFor(name).sizeThreshold)
      .reduce<SizeThreshold | undefined>((top, threshold) => higher(top, threshold), undefined);
    if (highest !== undefined && resultLimit(highest, undefined).bytes > ceiling.bytes) {
      above.push(`size_threshold ${highest}`);
    }
    if (flag !== undefined && flag.bytes > ceiling.bytes) above.push(`client_ceiling ${flag}`);
    if (above.length === 0) return;
    this.#told.add(client.name);
    // A version is the client's own text: a short one is all a line needs.
    const version = String(client.version).slice(0, 40);
    this.#options.warn(
      `${client.name} ${version} shows its model tool results whole up to ` +
        `${ByteSize.fromBytes(ceiling.bytes).human()}: results in its sessions are cut there ` +
        `(client ceiling: ${ceiling.client}), below ${above.join(" and ")}; ` +
        `[serve.client_ceilings] "${client.name}" sets another ceiling`,
    );
  }
}

function keyOf(ceiling: SessionCeiling | undefined): string {
  return ceiling === undefined ? "" : `${ceiling.bytes} ${ceiling.client ?? ""}`;
}

function higher(top: SizeThreshold | undefined, threshold: SizeThreshold): SizeThreshold {
  const bytes = (t: SizeThreshold) => t.bytes?.bytes ?? Infinity;
  return top === undefined || bytes(threshold) > bytes(top) ? threshold : top;
}
