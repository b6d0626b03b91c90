import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import { FieldError } from '@aas/problem-details';

/** The schema an answer must match: the request's own, or a string among its choices. */
export function effectiveSchema(schema: Record<string, unknown>, choices: string[] | null): Record<string, unknown> {
  return choices ? { type: 'string', enum: choices } : schema;
}

/**
 * Compiles a runtime's JSON Schema, or says why it cannot be. One Ajv per schema: an instance caches every
 * schema it compiled, and these come from runs, so a shared one would grow without bound.
 */
export function compileAnswerSchema(schema: Record<string, unknown>): ValidateFunction | { refusal: string } {
  try {
    return new Ajv({ strict: false, allErrors: true }).compile(schema);
  } catch (error) {
    return { refusal: `its schema is not a JSON Schema Ajv compiles: ${(error as Error).message}` };
  }
}

/** Where `answer` breaks `schema`, each fault named by its field (`answer`, `answer.amount`, `answer.items[2]`); [] when it matches. */
export function answerFaults(schema: Record<string, unknown>, answer: unknown): FieldError[] {
  const validate = compileAnswerSchema(schema);
  if ('refusal' in validate) return [{ field: 'answer', message: validate.refusal }];
  if (validate(answer)) return [];
  return (validate.errors ?? []).slice(0, 20).map(toFieldError);
}

function toFieldError(error: ErrorObject): FieldError {
  const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const extra = params.missingProperty ?? params.additionalProperty;
  if (extra !== undefined) segments.push(extra);
  const field = segments.reduce((path, s) => (/^\d+$/.test(s) ? `${path}[${s}]` : `${path}.${s}`), 'answer');
  return { field, message: `${field} ${error.message ?? 'is not valid'}` };
}
