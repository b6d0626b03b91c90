import { Logger } from '@nestjs/common';
import { JSONRPCMessage, MCPClient, MCPTransport, MCPTransportSendOptions, createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import type { ToolCallOptions } from 'ai';
import { McpStdioServerConfig } from '../config/mcp-servers.setting';
import { MCP_CONNECT_TIMEOUT_MS, McpTool, callOn, listMcpTools } from './mcp-tool';

const FIRST_RESTART_MS = 1_000;
const MAX_RESTART_MS = 30_000;
/** A process that ran this long before it died starts the backoff over. */
const STABLE_MS = 60_000;

/** Wait before restart number `restarts` (0 the first): 1 s, doubling, at most 30 s. */
export function restartDelayMs(restarts: number): number {
  return Math.min(MAX_RESTART_MS, FIRST_RESTART_MS * 2 ** Math.min(restarts, 16));
}

type State = 'running' | 'draining' | 'closed';

/**
 * An MCP server that is a local command: one process per runtime process, shared by every run, started
 * at bootstrap and restarted with backoff whenever it ends (or could not start). Its tools stay in the
 * catalogue as last listed; a call while the process is down fails with the reason, and the run goes on.
 */
export class StdioMcpServer {
  private live?: { client: MCPClient; tools: Record<string, McpTool>; since: number };
  private transport?: MCPTransport;
  private known: McpTool[] = [];
  private restarts = 0;
  private timer?: NodeJS.Timeout;
  private state: State = 'running';

  constructor(
    readonly name: string,
    private readonly config: McpStdioServerConfig,
    private readonly logger: Logger,
  ) {}

  /** The tools as last listed (empty until the process first started). */
  get tools(): McpTool[] {
    return this.known;
  }

  /** Starts the process and lists its tools; when that fails, it is tried again in the background. */
  async start(): Promise<void> {
    await this.connect();
  }

  /** On SIGTERM: no more restarts (a terminal's Ctrl-C signals the process too); runs in flight keep it. */
  drain(): void {
    if (this.state === 'running') this.state = 'draining';
    clearTimeout(this.timer);
  }

  async close(): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.timer);
    const live = this.live;
    this.live = undefined;
    await live?.client.close();
  }

  private async connect(): Promise<void> {
    this.timer = undefined;
    const { command, args, env, cwd } = this.config;
    const transport = new Experimental_StdioMCPTransport({ command, args, env, cwd, stderr: 'inherit' });
    this.transport = transport;
    let client: MCPClient | undefined;
    try {
      client = await createMCPClient({
        transport: new ObservedTransport(transport, () => this.ended(transport)),
        initializationOptions: { timeout: MCP_CONNECT_TIMEOUT_MS },
      });
      const tools = await listMcpTools(this.name, client, (tool) => (input, options) => this.call(tool, input, options));
      this.known = tools;
      this.live = { client, tools: Object.fromEntries(tools.map((tool) => [tool.entry.name, tool])), since: Date.now() };
      this.logger.log(`MCP server ${this.name} (stdio) started: ${tools.length} tool(s)`);
      if (this.state === 'closed') await this.close();
    } catch (error) {
      // The command line is left out of the log: its arguments may carry a credential.
      this.restartAfter(`did not start: ${(error as Error).message}`);
      await client?.close();
    }
  }

  /** The process ended: unless we are stopping, it is started again after the backoff. */
  private ended(transport: MCPTransport): void {
    if (transport !== this.transport || !this.live) return;
    if (Date.now() - this.live.since >= STABLE_MS) this.restarts = 0;
    this.live = undefined;
    this.restartAfter('exited');
  }

  private restartAfter(what: string): void {
    if (this.state !== 'running' || this.timer) return;
    const delay = restartDelayMs(this.restarts);
    this.restarts += 1;
    this.timer = setTimeout(() => void this.connect(), delay);
    this.logger.warn(`MCP server ${this.name} (stdio) ${what}; starting it again in ${delay} ms`);
  }

  private call(tool: string, input: unknown, options: ToolCallOptions): Promise<unknown> {
    const live = this.live;
    if (!live) return Promise.reject(new Error(`the MCP server ${this.name} is not running (it is being started again)`));
    const current = live.tools[`${this.name}.${tool}`];
    if (!current) return Promise.reject(new Error(`the MCP server ${this.name} no longer has the tool ${tool}`));
    return callOn(current.tool)(input, options);
  }
}

/** The stdio transport, also telling its owner when the process ends (the MCP client takes the transport's own onclose). */
class ObservedTransport implements MCPTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(
    private readonly inner: Experimental_StdioMCPTransport,
    ended: () => void,
  ) {
    inner.onclose = () => {
      this.onclose?.();
      ended();
    };
    inner.onerror = (error) => this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    inner.onmessage = (message) => this.onmessage?.(message);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, _options?: MCPTransportSendOptions): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
