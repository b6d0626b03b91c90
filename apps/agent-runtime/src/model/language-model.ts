import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { RuntimeEnv } from '../config/runtime.env';

/** The configured model, through the AI SDK provider MODEL_PROVIDER names. */
export function languageModelFrom(env: RuntimeEnv): LanguageModel {
  switch (env.MODEL_PROVIDER) {
    case 'openai':
      return createOpenAI({ apiKey: env.MODEL_API_KEY ?? '', baseURL: env.MODEL_BASE_URL })(env.MODEL_NAME);
    case 'anthropic':
      return createAnthropic({ apiKey: env.MODEL_API_KEY ?? '', baseURL: env.MODEL_BASE_URL })(env.MODEL_NAME);
    case 'openai-compatible':
      // includeUsage: streamed answers carry token usage only when asked (stream_options.include_usage).
      return createOpenAICompatible({ name: 'model', baseURL: env.MODEL_BASE_URL!, apiKey: env.MODEL_API_KEY, includeUsage: true })(
        env.MODEL_NAME,
      );
  }
}
