import { DeliveryDto } from '@aas/contracts';
import { DeliveryAttemptEntity } from '../database/delivery-attempt.entity';
import { DeliveryEntity } from '../database/delivery.entity';

/** A delivery with its attempts; when it will be tried next only while it is pending. */
export function toDeliveryDto(delivery: DeliveryEntity, attempts: DeliveryAttemptEntity[]): DeliveryDto {
  return {
    delivery_id: delivery.id,
    event: delivery.event,
    status: delivery.status,
    payload: JSON.parse(delivery.body),
    created_at: delivery.createdAt.toISOString(),
    next_attempt_at: delivery.status === 'pending' ? (delivery.nextAttemptAt?.toISOString() ?? null) : null,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      started_at: a.startedAt.toISOString(),
      duration_ms: a.durationMs,
      status_code: a.statusCode,
      error: a.error,
      response_body: a.responseBody,
      request_headers: a.requestHeaders,
      response_headers: a.responseHeaders,
    })),
    test: delivery.test,
  };
}
