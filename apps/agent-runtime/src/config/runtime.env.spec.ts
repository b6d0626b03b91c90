import { validateEnv } from '@aas/platform';
import { RuntimeEnv } from './runtime.env';

describe(RuntimeEnv.name, () => {
  const valid = { MODEL_BASE_URL: 'http://localhost:11434/v1', MODEL_NAME: 'llama3.1' };

  it('starts with a model name and, for openai-compatible, its base URL; the rest has defaults', () => {
    const env = validateEnv(RuntimeEnv, { ...valid, HTTP_TOOL_ALLOWED_HOSTS: 'api.example.com, hooks.example.com' });
    expect(env).toMatchObject({ MODEL_PROVIDER: 'openai-compatible', PORT: 3006, AGENT_MAX_STEPS: 20, HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: false });
    expect(env.HTTP_TOOL_ALLOWED_HOSTS).toEqual(['api.example.com', 'hooks.example.com']);
    expect(validateEnv(RuntimeEnv, { MODEL_PROVIDER: 'anthropic', MODEL_NAME: 'claude' }).MODEL_BASE_URL).toBeUndefined();
    expect(env.MODEL_MAX_OUTPUT_TOKENS).toBeUndefined();
    expect(validateEnv(RuntimeEnv, { ...valid, MODEL_MAX_OUTPUT_TOKENS: '4096' }).MODEL_MAX_OUTPUT_TOKENS).toBe(4096);
    expect(() => validateEnv(RuntimeEnv, { ...valid, MODEL_MAX_OUTPUT_TOKENS: 'lots' })).toThrow(/MODEL_MAX_OUTPUT_TOKENS must be an integer/);
  });

  it('lists every bad setting at once', () => {
    expect(() => validateEnv(RuntimeEnv, { MODEL_PROVIDER: 'bogus', AGENT_MAX_STEPS: '0', AGENT_RUNTIME_SECRET: 'short' })).toThrow(
      /MODEL_PROVIDER must be one of[\s\S]*MODEL_NAME is required[\s\S]*AGENT_RUNTIME_SECRET must be at least 16/,
    );
    expect(() => validateEnv(RuntimeEnv, { MODEL_NAME: 'x' })).toThrow(/MODEL_BASE_URL must be an http\(s\) URL \(required when MODEL_PROVIDER is openai-compatible\)/);
  });

  it('refuses a malformed MCP_SERVERS without showing it (it may hold credentials)', () => {
    let message = '';
    try {
      validateEnv(RuntimeEnv, { ...valid, MCP_SERVERS: '{"files":{"headers":{"authorization":"Bearer s3cret"}}}' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/MCP_SERVERS: files needs a "url"/);
    expect(message).not.toContain('s3cret');
  });

  it('refuses a malformed stdio MCP server, naming the field but not the values, and takes a good one', () => {
    const malformed = '{"local":{"command":"node","env":{"TOKEN":"s3cret"},"argv":["x"]}}';
    const message = (() => {
      try {
        validateEnv(RuntimeEnv, { ...valid, MCP_SERVERS: malformed });
        return 'no error';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(/MCP_SERVERS: local has an unknown field "argv"/);
    expect(message).not.toContain('s3cret');
    expect(validateEnv(RuntimeEnv, { ...valid, MCP_SERVERS: '{"local":{"command":"node","args":["server.js"]}}' }).MCP_SERVERS).toContain('server.js');
  });
});
