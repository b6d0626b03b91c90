import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import { IsInt, IsNotEmpty, IsString, Min, ValidateNested, validate } from 'class-validator';
import { ValidationFailedError } from './domain-error';
import { createValidationPipe, flattenValidationErrors } from './validation';

class Child {
  @IsInt()
  @Min(1)
  count!: number;
}

class Dto {
  @IsString()
  @IsNotEmpty()
  name!: string;

  @ValidateNested()
  @Type(() => Child)
  child!: Child;
}

async function rejection(value: unknown): Promise<ValidationFailedError> {
  const error = await createValidationPipe()
    .transform(value, { type: 'body', metatype: Dto })
    .then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ValidationFailedError);
  return error as ValidationFailedError;
}

describe('flattenValidationErrors', () => {
  it('names nested fields with dotted paths', async () => {
    const errors = flattenValidationErrors(await validate(plainToInstance(Dto, { name: 'ok', child: { count: 0 } })));
    expect(errors).toHaveLength(1);
    expect(errors[0].field).toBe('child.count');
    expect(errors[0].message).toMatch(/^child\.count /);
  });

  it('lists every failing constraint of top-level and nested fields', async () => {
    const errors = flattenValidationErrors(await validate(plainToInstance(Dto, { name: '', child: { count: 'x' } })));
    const fields = errors.map((e) => e.field);
    expect(fields).toContain('name');
    expect(fields).toContain('child.count');
    expect(fields.every((f) => f === 'name' || f === 'child.count')).toBe(true);
  });

  it('returns nothing for a valid object', async () => {
    expect(flattenValidationErrors(await validate(plainToInstance(Dto, { name: 'ok', child: { count: 2 } })))).toEqual([]);
  });
});

describe('createValidationPipe', () => {
  it('rejects invalid input with a ValidationFailedError naming the field', async () => {
    const error = await rejection({ name: 'ok', child: { count: 0 } });
    expect(error.errors?.map((e) => e.field)).toEqual(['child.count']);
    expect(error.message).toContain('child.count');
  });

  it('rejects unknown properties, naming them', async () => {
    const error = await rejection({ name: 'ok', child: { count: 1 }, isAdmin: true });
    expect(error.errors?.map((e) => e.field)).toEqual(['isAdmin']);
  });

  it('rejects unknown properties of nested objects with a dotted path', async () => {
    const error = await rejection({ name: 'ok', child: { count: 1, extra: 1 } });
    expect(error.errors?.map((e) => e.field)).toEqual(['child.extra']);
  });

  it('returns a Dto instance for valid input', async () => {
    const result = await createValidationPipe().transform({ name: 'ok', child: { count: 3 } }, { type: 'body', metatype: Dto });
    expect(result).toBeInstanceOf(Dto);
    expect(result.child).toBeInstanceOf(Child);
    expect(result).toEqual({ name: 'ok', child: { count: 3 } });
  });

  it('refuses a request with too many members before class-transformer walks it, in milliseconds where it took seconds', async () => {
    const manyKeys = Object.fromEntries(Array.from({ length: 75_000 }, (_, i) => [`k${i}`, i]));
    const started = performance.now();
    const error = await rejection({ name: 'ok', child: { count: 1 }, ...manyKeys });
    expect(error.message).toMatch(/has 75002 members, more than 1000/);
    // Walking it took about 11 s; the count is milliseconds, so even a loaded CI machine stays far below this.
    expect(performance.now() - started).toBeLessThan(3_000);
    const wide = { name: 'ok', child: { count: 1 }, list: Array.from({ length: 30 }, () => Array.from({ length: 1000 }, () => 1)) };
    expect((await rejection(wide)).message).toMatch(/more than 25000 members/);
  });
});
