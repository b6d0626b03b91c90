import { isUUID } from 'class-validator';

/** Path ids that are not UUIDs cannot name a row; callers answer 404 without asking PostgreSQL. */
export function isUuid(value: string): boolean {
  return isUUID(value, 'all');
}
