/**
 * The one door to the MCP TypeScript SDK (v2: `@modelcontextprotocol/server`,
 * `/client` and `/core`). The rest of spillway imports the SDK only through
 * this file, so that what it relies on is listed in one place. Server-side
 * classes come from the server package, the client from the client package
 * (each bundles its own copy of the protocol; their error classes match by
 * brand across the two), the zod schemas of the wire from the core package.
 *
 * @module
 */

export {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  createMcpHandler,
  createRequestStateCodec,
  DEFAULT_REQUEST_TIMEOUT_MSEC,
  deserializeMessage,
  InMemoryTransport,
  isInitializeRequest,
  isLegacyRequest,
  LOG_LEVEL_META_KEY,
  McpServer,
  MissingRequiredClientCapabilityError,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  ReadBuffer,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  serializeMessage,
  Server,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  UriTemplate,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
export type {
  AudioContent,
  CallToolRequest,
  CallToolResult,
  ClientCapabilities,
  CompleteRequest,
  CompleteResult,
  ContentBlock,
  CreateMcpHandlerOptions,
  CreateMessageResult,
  ElicitResult,
  EmbeddedResource,
  GetPromptRequest,
  GetPromptResult,
  ImageContent,
  Implementation,
  InputRequest,
  InputRequiredResult,
  JSONRPCMessage,
  ListResourcesResult,
  ListRootsResult,
  ListToolsResult,
  LoggingLevel,
  McpHttpHandler,
  ProgressToken,
  Prompt,
  ReadResourceRequest,
  ReadResourceResult,
  RequestId,
  RequestOptions,
  RequestStateCodec,
  Resource,
  ResourceLink,
  ResourceTemplateType as ResourceTemplate,
  ServerCapabilities,
  ServerContext,
  ServerNotification,
  ServerOptions,
  ServerRequest,
  TextContent,
  Tool,
  Transport,
  TransportSendOptions,
  WebStandardStreamableHTTPServerTransportOptions,
} from "@modelcontextprotocol/server";
export { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";

export { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
export type {
  ClientContext,
  ClientOptions,
  McpSubscription,
  PriorDiscovery,
  StreamableHTTPClientTransportOptions,
  SubscriptionFilter,
} from "@modelcontextprotocol/client";
export { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
export type { StdioServerParameters } from "@modelcontextprotocol/client/stdio";

export {
  CallToolRequestSchema,
  CallToolResultSchema,
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  JSONRPCMessageSchema,
  ListRootsResultSchema,
  ListToolsResultSchema,
  LoggingLevelSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
  ResultSchema,
} from "@modelcontextprotocol/core";
