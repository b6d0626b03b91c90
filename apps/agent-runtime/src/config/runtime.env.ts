import { EnvBoolean, EnvList } from '@aas/platform';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, ValidateBy, ValidateIf } from 'class-validator';
import { parseMcpServers } from './mcp-servers.setting';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const MODEL_PROVIDERS = ['openai-compatible', 'openai', 'anthropic'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/** The agent runtime's settings (docs/runtime.md). It has no database and no Redis: it is stateless. */
export class RuntimeEnv {
  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  /** Port of the dispatch endpoint, /tools, /healthz and /readyz; 0 lets the OS pick. */
  @IsInt({ message: 'PORT must be an integer' })
  @Min(0)
  @Max(65535)
  PORT: number = 3006;

  @IsIn(MODEL_PROVIDERS, { message: `MODEL_PROVIDER must be one of ${MODEL_PROVIDERS.join(', ')}` })
  MODEL_PROVIDER: ModelProvider = 'openai-compatible';

  /** The provider's API base, e.g. http://localhost:11434/v1 (Ollama); required for openai-compatible. */
  @ValidateIf((env: RuntimeEnv) => env.MODEL_PROVIDER === 'openai-compatible' || env.MODEL_BASE_URL !== undefined)
  @Matches(/^https?:\/\/\S+$/, { message: 'MODEL_BASE_URL must be an http(s) URL (required when MODEL_PROVIDER is openai-compatible)' })
  MODEL_BASE_URL?: string;

  @IsOptional()
  @IsString()
  MODEL_API_KEY?: string;

  @IsString({ message: 'MODEL_NAME is required (the model id the provider knows, e.g. llama3.1 or gpt-4.1-mini)' })
  MODEL_NAME!: string;

  /** Key of the dispatch's X-Service-Signature (runs-service's AGENT_RUNTIME_SECRET); unset: dispatches are not checked. */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'AGENT_RUNTIME_SECRET must be at least 16 characters' })
  AGENT_RUNTIME_SECRET?: string;

  /** Model steps (calls) one run may make. */
  @IsInt()
  @Min(1)
  @Max(1000)
  AGENT_MAX_STEPS: number = 20;

  /** Input plus output tokens one run may use, all its model calls together. */
  @IsInt()
  @Min(100)
  @Max(100_000_000)
  AGENT_MAX_TOKENS: number = 200_000;

  /** Retries of a model call answered 429 or 5xx (exponential backoff from 2 s, honouring Retry-After). */
  @IsInt()
  @Min(0)
  @Max(10)
  MODEL_RETRIES: number = 4;

  /** Most output tokens one model call may write; unset: the provider's default (for a model id @ai-sdk/anthropic does not know, 128,000). */
  @IsOptional()
  @IsInt({ message: 'MODEL_MAX_OUTPUT_TOKENS must be an integer' })
  @Min(16)
  @Max(1_000_000)
  MODEL_MAX_OUTPUT_TOKENS?: number;

  /** Runs one process executes at once; more dispatches are answered 503. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  AGENT_MAX_CONCURRENT_RUNS: number = 1000;

  /** A tool's output is cut to this many bytes (UTF-8) in tool_result lines and for the model. */
  @IsInt()
  @Min(256)
  @Max(1_048_576)
  TOOL_OUTPUT_MAX_BYTES: number = 16_384;

  /** http_request may only call these hosts (comma-separated, exact names); unset: any public host. */
  @IsOptional()
  @EnvList()
  @IsArray()
  @IsString({ each: true })
  HTTP_TOOL_ALLOWED_HOSTS?: string[];

  @IsInt()
  @Min(100)
  @Max(300_000)
  HTTP_TOOL_TIMEOUT_MS: number = 15_000;

  /** http_request reads at most this many bytes of a response body. */
  @IsInt()
  @Min(1024)
  @Max(10_485_760)
  HTTP_TOOL_MAX_BYTES: number = 1_048_576;

  /** Let http_request reach loopback, private and link-local addresses (SSRF protection off), as WEBHOOK_ALLOW_PRIVATE_NETWORKS. */
  @EnvBoolean()
  @IsBoolean({ message: 'HTTP_TOOL_ALLOW_PRIVATE_NETWORKS must be true or false' })
  HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: boolean = false;

  /** MCP servers whose tools runs may call, a JSON object by name: {"files":{"url":"…","headers":{…}},"local":{"command":"…","args":[…],"env":{…}}}. */
  @IsOptional()
  @ValidateBy({
    name: 'mcpServers',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && typeof parseMcpServers(value) !== 'string',
      defaultMessage: (args) => String(parseMcpServers(typeof args?.value === 'string' ? args.value : '[]')),
    },
  })
  MCP_SERVERS?: string;

  /** On SIGTERM, how long runs in flight may go on before they end with a `failed` line. */
  @IsInt({ message: 'SHUTDOWN_DRAIN_MS must be an integer' })
  @Min(0)
  @Max(600_000)
  SHUTDOWN_DRAIN_MS: number = 20_000;
}
