import { z } from 'zod';

export const ASK_USER = 'ask_user';

export const askUserInput = z.object({
  prompt: z.string().min(1).max(10_000).describe('the question to the person'),
  schema: z.record(z.string(), z.unknown()).optional().describe('JSON Schema of the answer; a string when left out'),
});
export type AskUserInput = z.infer<typeof askUserInput>;

export const ASK_USER_DESCRIPTION =
  'Asks a person a question and waits for the answer (a JSON value matching the schema). Use only when the instructions leave a decision to a person.';

/**
 * Nothing answers a question yet (the human-in-the-loop issue adds that): the run waits, holding its
 * place, until it is cancelled or its deadline passes, which ends it.
 */
export function waitForAnswer(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (!signal) return;
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
