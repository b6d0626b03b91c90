import type { LogWarningsFunction } from 'ai';

/**
 * The AI SDK's warnings (say, an Anthropic model id it does not know, so it guesses the output limit)
 * go to our log, each once per process: by default the SDK prints them with console.warn on every call.
 */
export function sdkWarningsOnce(warn: (message: string) => void): LogWarningsFunction {
  const seen = new Set<string>();
  return ({ warnings, provider, model }) => {
    for (const warning of warnings) {
      const text = `AI SDK warning (${provider} / ${model}): ${JSON.stringify(warning)}`;
      if (seen.has(text)) continue;
      seen.add(text);
      warn(text);
    }
  };
}
