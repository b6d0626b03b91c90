import { isWellFormedText } from './text.validators';

/** The deepest JSON a request may carry, in objects and arrays: the API's bodies and inbound payloads alike. */
export const JSON_VALUE_MAX_DEPTH = 32;

/** Where a JSON value breaks the API's rules, and which rule. */
export interface JsonValueFault {
  /** `$` for the value itself, `$.a[2]["odd key"]` for one inside it. */
  path: string;
  rule: string;
}

interface Pending {
  value: object;
  depth: number;
  parent: Pending | null;
  key: string | number | null;
}

/**
 * The first place where a parsed JSON value breaks the rules the API's own bodies keep: text (keys and
 * strings) without U+0000 and unpaired surrogates, which PostgreSQL cannot store; numbers that are
 * finite (`1e400` parses as Infinity, which JSON cannot carry on); at most JSON_VALUE_MAX_DEPTH levels
 * of objects and arrays. Iterative, so any depth is measured without deep recursion; undefined when
 * the value keeps every rule.
 */
export function jsonValueFault(root: unknown, maxDepth = JSON_VALUE_MAX_DEPTH): JsonValueFault | undefined {
  const rootFault = scalarFault(root);
  if (rootFault) return { path: '$', rule: rootFault };
  if (typeof root !== 'object' || root === null) return undefined;
  const pending: Pending[] = [{ value: root, depth: 1, parent: null, key: null }];
  while (pending.length > 0) {
    const at = pending.pop()!;
    if (at.depth > maxDepth) return { path: pathOf(at), rule: `nested deeper than ${maxDepth} levels of objects and arrays` };
    const visit = (key: string | number, child: unknown): JsonValueFault | undefined => {
      if (typeof key === 'string' && !wellFormed(key)) return { path: pathOf(at), rule: `a key ${TEXT_RULE}` };
      const fault = scalarFault(child);
      if (fault) return { path: pathOf({ value: at.value, depth: at.depth, parent: at, key }), rule: fault };
      if (typeof child === 'object' && child !== null) pending.push({ value: child, depth: at.depth + 1, parent: at, key });
      return undefined;
    };
    if (Array.isArray(at.value)) {
      for (let i = 0; i < at.value.length; i++) {
        const fault = visit(i, at.value[i]);
        if (fault) return fault;
      }
    } else {
      for (const key of Object.keys(at.value)) {
        const fault = visit(key, (at.value as Record<string, unknown>)[key]);
        if (fault) return fault;
      }
    }
  }
  return undefined;
}

/** Text with none of these is well formed; text with one is looked at closely (a surrogate may be half of a pair). */
// eslint-disable-next-line no-control-regex
const SUSPECT = /[\u0000\ud800-\udfff]/;

function wellFormed(text: string): boolean {
  return !SUSPECT.test(text) || isWellFormedText(text);
}

const TEXT_RULE = 'must be well-formed Unicode text without NUL (U+0000) characters or unpaired UTF-16 surrogates';

function scalarFault(value: unknown): string | undefined {
  if (typeof value === 'string' && !wellFormed(value)) return `a string ${TEXT_RULE}`;
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number must be finite (at most about 1.8e308 in magnitude)';
  return undefined;
}

/** Keys are shown JSON-quoted where they are not plain names, and cut to 40 characters. */
function pathOf(at: Pending): string {
  const parts: string[] = [];
  for (let step: Pending | null = at; step !== null && step.key !== null; step = step.parent) {
    const key = step.key;
    if (typeof key === 'number') parts.push(`[${key}]`);
    else if (/^[A-Za-z_][A-Za-z0-9_-]{0,39}$/.test(key)) parts.push(`.${key}`);
    else parts.push(`[${JSON.stringify(isWellFormedText(key) ? key.slice(0, 40) : '…')}]`);
  }
  return `$${parts.reverse().join('')}`;
}
