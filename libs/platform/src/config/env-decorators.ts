import { Transform } from 'class-transformer';

/** `true`/`false` strings to booleans; anything else is left for @IsBoolean to reject. */
export function EnvBoolean(): PropertyDecorator {
  return Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
    const raw = obj[key];
    if (raw === undefined || raw === false || raw === 'false') return raw === undefined ? undefined : false;
    if (raw === true || raw === 'true') return true;
    return raw;
  });
}

/** Comma-separated list to an array of trimmed strings. */
export function EnvList(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : value,
  );
}
