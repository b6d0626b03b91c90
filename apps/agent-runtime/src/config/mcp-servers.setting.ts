/** An MCP server of MCP_SERVERS reached over streamable HTTP, with optional headers (credentials). */
export interface McpHttpServerConfig {
  url: string;
  headers?: Record<string, string>;
}

/** An MCP server of MCP_SERVERS that is a local command, spoken to over its stdin and stdout. */
export interface McpStdioServerConfig {
  command: string;
  args?: string[];
  /** Its environment besides HOME, LOGNAME, PATH, SHELL, TERM and USER (none of the runtime's settings). */
  env?: Record<string, string>;
  cwd?: string;
}

export type McpServerConfig = McpHttpServerConfig | McpStdioServerConfig;

export function isStdioServer(server: McpServerConfig): server is McpStdioServerConfig {
  return 'command' in server;
}

const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;
const HTTP_FIELDS = new Set(['url', 'headers']);
const STDIO_FIELDS = new Set(['command', 'args', 'env', 'cwd']);
const EXAMPLE = '{"files":{"url":"http://files:8080/mcp"},"local":{"command":"node","args":["server.js"]}}';

/**
 * MCP_SERVERS: a JSON object of servers by name, each either {"url", "headers"} (streamable HTTP) or
 * {"command", "args", "env", "cwd"} (stdio). Returns the servers, or the reason the text is not such an
 * object. Names become the tools' prefix (`files.read`), so they are letters, digits, _ and -.
 */
export function parseMcpServers(text: string | undefined): Record<string, McpServerConfig> | string {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `MCP_SERVERS must be a JSON object of servers by name, e.g. ${EXAMPLE}`;
  }
  if (!isObject(value)) return 'MCP_SERVERS must be a JSON object of servers by name';
  for (const [name, server] of Object.entries(value)) {
    const problem = SERVER_NAME.test(name) ? serverProblem(name, server) : `the server name ${JSON.stringify(name)} must be 1-32 letters, digits, _ or -`;
    if (problem) return `MCP_SERVERS: ${problem}`;
  }
  return value as Record<string, McpServerConfig>;
}

function serverProblem(name: string, server: unknown): string | undefined {
  if (!isObject(server)) return `${name} must be an object with a "url" or a "command"`;
  if ('url' in server && 'command' in server) return `${name} has both a "url" and a "command": one server is one or the other`;
  if ('command' in server) return stdioProblem(name, server);
  const { url, headers } = server;
  if (typeof url !== 'string' || !/^https?:\/\/\S+$/.test(url)) return `${name} needs a "url" (http or https) or a "command"`;
  if (headers !== undefined && !isStringRecord(headers)) return `the "headers" of ${name} must be an object of strings`;
  return unknownField(name, server, HTTP_FIELDS);
}

function stdioProblem(name: string, server: Record<string, unknown>): string | undefined {
  const { command, args, env, cwd } = server;
  if (typeof command !== 'string' || command.trim() === '') return `the "command" of ${name} must be a non-empty string (the program to run)`;
  if (args !== undefined && !(Array.isArray(args) && args.every((arg) => typeof arg === 'string'))) return `the "args" of ${name} must be an array of strings`;
  if (env !== undefined && !isStringRecord(env)) return `the "env" of ${name} must be an object of strings`;
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd === '')) return `the "cwd" of ${name} must be a non-empty string`;
  return unknownField(name, server, STDIO_FIELDS);
}

// A misspelt field ("header", "argv") would otherwise be dropped without a word.
function unknownField(name: string, server: Record<string, unknown>, allowed: Set<string>): string | undefined {
  const unknown = Object.keys(server).find((field) => !allowed.has(field));
  if (unknown === undefined) return undefined;
  return `${name} has an unknown field ${JSON.stringify(unknown)} (a server has "url" and "headers", or "command", "args", "env" and "cwd")`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isObject(value) && Object.values(value).every((v) => typeof v === 'string');
}

/** The name the model calls an MCP tool by: function names allow no dot (OpenAI: ^[a-zA-Z0-9_-]{1,64}$). */
export function modelToolName(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}
