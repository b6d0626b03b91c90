/** One MCP server of MCP_SERVERS: reached over streamable HTTP, with optional headers (credentials). */
export interface McpServerConfig {
  url: string;
  headers?: Record<string, string>;
}

const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * MCP_SERVERS: a JSON object of servers by name, e.g. {"files":{"url":"http://files:8080/mcp"}}.
 * Returns the servers, or the reason the text is not such an object. Names become the tools'
 * prefix (`files.read`), so they are letters, digits, _ and -.
 */
export function parseMcpServers(text: string | undefined): Record<string, McpServerConfig> | string {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'MCP_SERVERS must be a JSON object of servers by name, e.g. {"files":{"url":"http://files:8080/mcp"}}';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'MCP_SERVERS must be a JSON object of servers by name';
  for (const [name, server] of Object.entries(value)) {
    if (!SERVER_NAME.test(name)) return `MCP_SERVERS: the server name ${JSON.stringify(name)} must be 1-32 letters, digits, _ or -`;
    const { url, headers } = (server ?? {}) as Partial<McpServerConfig>;
    if (typeof url !== 'string' || !/^https?:\/\/\S+$/.test(url)) return `MCP_SERVERS: ${name} needs a "url" (http or https)`;
    if (headers !== undefined && (typeof headers !== 'object' || headers === null || Object.values(headers).some((v) => typeof v !== 'string'))) {
      return `MCP_SERVERS: the "headers" of ${name} must be an object of strings`;
    }
  }
  return value as Record<string, McpServerConfig>;
}

/** The name the model calls an MCP tool by: function names allow no dot (OpenAI: ^[a-zA-Z0-9_-]{1,64}$). */
export function modelToolName(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}
