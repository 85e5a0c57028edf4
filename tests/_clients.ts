/**
 * Test helper: `spillway serve --http` with clients of their own
 * (`[serve.tokens.alice]`, `[serve.tokens.bob]`) beside the default one,
 * and SDK clients connecting with each one's token.
 *
 * @module
 */

import { Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";
import { type ServeProcess, spawnHttpServe, upstreamConfig } from "./gateway_fixtures.ts";

/** Each client's token. */
export const TOKENS = {
  default: "default-token-0123456789abcdef",
  alice: "alice-token-0123456789abcdef",
  bob: "bob-token-0123456789abcdef0123",
} as const;

/** A client of the gateway, by name. */
export type ClientName = keyof typeof TOKENS;

/** `[serve.tokens]` for alice and bob. */
export const TOKENS_CONFIG = `
[serve.tokens.alice]
env = "ALICE_TOKEN"

[serve.tokens.bob]
env = "BOB_TOKEN"
`;

/** The environment that gives each client its token. */
export const TOKENS_ENV: Record<string, string> = {
  SPILLWAY_SERVE_TOKEN: TOKENS.default,
  ALICE_TOKEN: TOKENS.alice,
  BOB_TOKEN: TOKENS.bob,
};

/**
 * Starts `serve --http` with the three clients, in front of the conformance
 * upstream (`providers.mcp.conf`), plus `extra` config.
 */
export function spawnClientsServe(
  extra = "",
  options: {
    readonly config?: string;
    readonly env?: Record<string, string>;
    /** More flags of `serve`. Default: none. */
    readonly flags?: readonly string[];
  } = {},
): Promise<ServeProcess> {
  return spawnHttpServe(options.flags ?? [], {
    config: `${options.config ?? upstreamConfig()}\n${TOKENS_CONFIG}\n${extra}`,
    env: { ...TOKENS_ENV, ...options.env },
  });
}

/** An SDK client of `url` with `client`'s token; `setup` installs handlers before it connects. */
export async function clientOf(
  url: URL,
  client: ClientName,
  setup?: (sdk: Client) => void,
): Promise<Client> {
  const sdk = new Client({ name: `${client}-test`, version: "1.0.0" }, {
    capabilities: { sampling: {}, elicitation: {} },
  });
  setup?.(sdk);
  await sdk.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${TOKENS[client]}` } },
    }),
  );
  return sdk;
}

/** Ends `sdk`'s session (HTTP DELETE, as a client that leaves does), then closes it. */
export async function endSession(sdk: Client): Promise<void> {
  await (sdk.transport as StreamableHTTPClientTransport | undefined)?.terminateSession();
  await sdk.close();
}
