import { sdkWarningsOnce } from './sdk-warnings';

describe(sdkWarningsOnce.name, () => {
  it('passes each distinct warning on once, naming the provider and the model', () => {
    const logged: string[] = [];
    const log = sdkWarningsOnce((message) => logged.push(message));
    const unknownModel = { type: 'compatibility' as const, feature: 'maxOutputTokens', details: 'The model is unknown.' };
    log({ warnings: [unknownModel], provider: 'anthropic.messages', model: 'claude-x' });
    log({ warnings: [unknownModel], provider: 'anthropic.messages', model: 'claude-x' });
    log({ warnings: [unknownModel, { type: 'other' as const, message: 'something else' }], provider: 'anthropic.messages', model: 'claude-x' });
    expect(logged).toEqual([
      'AI SDK warning (anthropic.messages / claude-x): {"type":"compatibility","feature":"maxOutputTokens","details":"The model is unknown."}',
      'AI SDK warning (anthropic.messages / claude-x): {"type":"other","message":"something else"}',
    ]);
  });
});
