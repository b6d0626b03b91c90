import { STATUS_CODES } from 'node:http';
import type { AttemptRecord } from './delivery.store';

/** What one batch of attempts does to one webhook's health (the webhooks row's health columns). */
export interface HealthChange {
  webhookId: string;
  /** An attempt of the batch got a 2xx: the count restarts from the failures after the last one. */
  succeeded: boolean;
  /** Failed attempts after the batch's last success (all of them, without one). */
  failures: number;
  lastSuccessAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
}

/** The error kept with an attempt: what went wrong, and why it will not be retried when that is not plain. */
export function attemptError(record: Pick<AttemptRecord, 'result' | 'outcome'>): string | null {
  const notRetried = record.outcome.status === 'failed' ? record.outcome.notRetried : undefined;
  const parts = [record.result.error, notRetried && `not retried: ${notRetried}`].filter((part): part is string => Boolean(part));
  return parts.length > 0 ? parts.join('; ') : null;
}

/** A failed attempt as the health object's last_error says it: its error, else its status with the reason phrase. */
export function healthError(record: Pick<AttemptRecord, 'result' | 'outcome'>): string {
  const { statusCode } = record.result;
  const status = statusCode === null ? 'no answer' : `HTTP ${statusCode}${STATUS_CODES[statusCode] ? ` ${STATUS_CODES[statusCode]}` : ''}`;
  const error = attemptError(record);
  return statusCode === null ? (error ?? status) : error ? `${status}: ${error}` : status;
}

/**
 * One change per webhook for a batch of attempts, in the batch's order (the order they were recorded):
 * a 2xx resets the run of failures, any other outcome (a 4xx included: the delivery failed) adds one.
 */
export function healthChanges(records: AttemptRecord[]): HealthChange[] {
  const byWebhook = new Map<string, HealthChange>();
  for (const record of records) {
    let change = byWebhook.get(record.webhookId);
    if (!change) {
      change = { webhookId: record.webhookId, succeeded: false, failures: 0, lastSuccessAt: null, lastError: null, lastErrorAt: null };
      byWebhook.set(record.webhookId, change);
    }
    if (record.outcome.status === 'succeeded') {
      Object.assign(change, { succeeded: true, failures: 0, lastSuccessAt: latest(change.lastSuccessAt, record.startedAt) });
    } else {
      change.failures += 1;
      if (!change.lastErrorAt || record.startedAt >= change.lastErrorAt) Object.assign(change, { lastError: healthError(record), lastErrorAt: record.startedAt });
    }
  }
  // Sorted by webhook id: the rows are locked in that order, so two batches never wait for each other in a cycle.
  return [...byWebhook.values()].sort((a, b) => (a.webhookId < b.webhookId ? -1 : a.webhookId > b.webhookId ? 1 : 0));
}

function latest(a: Date | null, b: Date): Date {
  return a && a > b ? a : b;
}
