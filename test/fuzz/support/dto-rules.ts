import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';

/**
 * What the validators of one DTO field accept, read from class-validator's
 * metadata. The fuzz uses it to know which generated values must be refused
 * (a 400) and which may be taken; the OpenAPI document says which fields exist.
 */
export interface FieldRule {
  name: string;
  /** May be absent (@IsOptional, or @ValidateIf as PATCH fields use it). */
  optional: boolean;
  /** May be null: @IsOptional lets null through; @ValidateIf(value !== undefined) does not. */
  nullable: boolean;
  /** `json`: any JSON value but null (only @IsDefined), checked later against a schema of its own. */
  kind: 'string' | 'boolean' | 'integer' | 'array' | 'object' | 'json';
  /** String checks (for arrays: of each item). */
  minLength?: number;
  maxLength?: number;
  oneOf?: readonly unknown[];
  uuid?: boolean;
  iso8601?: boolean;
  pattern?: RegExp;
  /** Refuses U+0000 and lone surrogates. */
  wellFormed?: boolean;
  min?: number;
  max?: number;
  arrayMin?: number;
  arrayMax?: number;
  unique?: boolean;
  /** The kind of the items of an array field. */
  itemKind?: 'string' | 'object';
  /** The class of nested objects (ValidateNested). */
  nested?: Function;
}

type Meta = { propertyName: string; type: string; name?: string; constraints?: unknown[]; each?: boolean };

export function rulesOf(dto: Function): Map<string, FieldRule> {
  const metas = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false) as unknown as Meta[];
  const byField = new Map<string, Meta[]>();
  for (const meta of metas) byField.set(meta.propertyName, [...(byField.get(meta.propertyName) ?? []), meta]);
  const rules = new Map<string, FieldRule>();
  for (const [name, list] of byField) rules.set(name, ruleOf(dto, name, list));
  return rules;
}

function ruleOf(dto: Function, name: string, metas: Meta[]): FieldRule {
  const has = (n: string) => metas.find((m) => m.name === n);
  const constraint = (n: string, i = 0) => has(n)?.constraints?.[i] as number | undefined;
  const isArray = Boolean(has('isArray'));
  const nested = metas.some((m) => m.type === 'nestedValidation');
  let kind: FieldRule['kind'] = 'string';
  if (isArray) kind = 'array';
  else if (has('isBoolean')) kind = 'boolean';
  else if (has('isInt')) kind = 'integer';
  else if (nested) kind = 'object';
  else if (has('isDefined') && metas.every((m) => m.name === 'isDefined')) kind = 'json';
  const rule: FieldRule = {
    name,
    kind,
    optional: metas.some((m) => m.type === 'conditionalValidation'),
    nullable: metas.some((m) => m.type === 'conditionalValidation' && m.name === 'isOptional'),
  };
  const length = has('isLength')?.constraints as [number, number] | undefined;
  if (length) [rule.minLength, rule.maxLength] = length;
  if (has('maxLength')) rule.maxLength = constraint('maxLength');
  if (has('minLength')) rule.minLength = constraint('minLength');
  if (has('isIn')) rule.oneOf = has('isIn')!.constraints![0] as readonly unknown[];
  if (has('isUuid')) rule.uuid = true;
  if (has('isIso8601')) rule.iso8601 = true;
  if (has('matches')) rule.pattern = has('matches')!.constraints![0] as RegExp;
  if (has('isWellFormedText')) rule.wellFormed = true;
  if (has('min')) rule.min = constraint('min');
  if (has('max')) rule.max = constraint('max');
  if (has('arrayMinSize')) rule.arrayMin = constraint('arrayMinSize');
  if (has('arrayMaxSize')) rule.arrayMax = constraint('arrayMaxSize');
  if (has('arrayUnique')) rule.unique = true;
  if (isArray) {
    rule.itemKind = nested ? 'object' : 'string';
    if (nested) rule.nested = nestedClassOf(dto, name);
  } else if (nested) {
    rule.nested = nestedClassOf(dto, name);
  }
  return rule;
}

/** The @Type(() => X) class of a nested field, from class-transformer's metadata. */
function nestedClassOf(dto: Function, property: string): Function | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
    defaultMetadataStorage: { findTypeMetadata(target: Function, property: string): { typeFunction: () => Function } | undefined };
  };
  return defaultMetadataStorage.findTypeMetadata(dto, property)?.typeFunction();
}

/** Whether a value of the right JSON type passes the field's string checks (the oracle for generated strings). */
export function stringAccepted(rule: FieldRule, value: string): boolean | 'unknown' {
  const length = validatorLength(value);
  if (rule.minLength !== undefined && length < rule.minLength) return false;
  if (rule.maxLength !== undefined && length > rule.maxLength) return false;
  if (rule.wellFormed && !wellFormed(value)) return false;
  if (rule.oneOf) return rule.oneOf.includes(value);
  if (rule.pattern) return new RegExp(rule.pattern.source, rule.pattern.flags).test(value);
  if (rule.uuid) return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) ? 'unknown' : false;
  if (rule.iso8601) return 'unknown';
  return true;
}

/** Length as class-validator (validator.js isLength) counts it: a surrogate pair or a presentation sequence is one. */
export function validatorLength(value: string): number {
  const presentation = value.match(/[^\uFE0F\uFE0E][\uFE0F\uFE0E]/g) ?? [];
  const pairs = value.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g) ?? [];
  return value.length - presentation.length - pairs.length;
}

/** No U+0000 and no surrogate without its other half (what PostgreSQL can store). */
function wellFormed(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit === 0) return false;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      return false;
    }
  }
  return true;
}
