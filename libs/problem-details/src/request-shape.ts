import { ValidationFailedError } from './domain-error';

/**
 * Most members one object of a validated request may have: far above any DTO's fields, and where
 * class-transformer's key handling, quadratic in an object's size, still costs under a millisecond
 * (75,000 members in one object, a 1 MiB body, cost it 11 s of one event loop).
 */
export const OBJECT_MEMBERS_MAX = 1_000;
/** Most object members and array items in one validated request, all together (the largest instructions are about 21,000). */
export const REQUEST_MEMBERS_MAX = 25_000;

/**
 * Refuses (400) a request too big in members for class-transformer to walk in bounded time, before it
 * walks it: the ValidationPipe of every app (HTTP bodies, query objects and transport messages) calls it.
 * Iterative, and it stops at the first fault.
 */
export function checkRequestShape(root: unknown): void {
  if (typeof root !== 'object' || root === null) return;
  const pending: object[] = [root];
  let members = 0;
  while (pending.length > 0) {
    const value = pending.pop()!;
    const children = Array.isArray(value) ? value : Object.values(value);
    if (!Array.isArray(value) && children.length > OBJECT_MEMBERS_MAX) {
      throw new ValidationFailedError(`An object in the request has ${children.length} members, more than ${OBJECT_MEMBERS_MAX}`);
    }
    members += children.length;
    if (members > REQUEST_MEMBERS_MAX) throw new ValidationFailedError(`The request has more than ${REQUEST_MEMBERS_MAX} members (object fields and array items)`);
    for (const child of children) if (typeof child === 'object' && child !== null) pending.push(child);
  }
}
