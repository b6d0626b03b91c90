import { RuntimeLine } from '@aas/contracts';

export function isRuntimeLine(value: unknown): value is RuntimeLine {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as RuntimeLine).type === 'string';
}

/** `{"type":"step","title":"x"}` is recorded as `{"step":{"title":"x"}}`. */
export function toRunEvent(line: RuntimeLine): Record<string, unknown> {
  const { type, ...rest } = line;
  return { [type]: rest };
}
