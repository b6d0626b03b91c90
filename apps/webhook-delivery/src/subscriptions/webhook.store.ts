import { WebhookStatus } from '@aas/contracts';
import { WebhookEntity } from '../database/webhook.entity';
import { Transaction } from '@aas/platform';

export interface NewWebhook {
  agentId: string;
  agentGeneration: number;
  userId: string;
  url: string;
  events: string[];
  /** The signing secret, sealed (SigningSecrets). */
  secretSealed: string;
}

/** The fields an update may change; those left out keep their value. */
export interface WebhookChanges {
  url?: string;
  events?: string[];
  status?: WebhookStatus;
}

/**
 * Every statement on the `webhooks` table for its CRUD and its agent's deletion
 * (postgres-webhook.store.ts); an abstract class, so that it is the injection token and a fake can
 * stand in for it.
 */
export abstract class WebhookStore {
  /** The user's webhooks of the agent, of every agent generation, oldest first. */
  abstract listOfAgent(userId: string, agentId: string): Promise<WebhookEntity[]>;

  /** The webhook if it is the user's and the agent's (of whatever generation). */
  abstract findOwned(userId: string, agentId: string, webhookId: string): Promise<WebhookEntity | null>;

  /**
   * Serialises the creations for one agent until `tx` ends: the agent's row lives in agents-service,
   * so a transaction-scoped advisory lock on its id stands in for it.
   */
  abstract lockAgent(tx: Transaction, agentId: string): Promise<void>;

  /** How many webhooks the agent has of `generation` (or from before generations), counted up to `atMost`. */
  abstract countOfGeneration(tx: Transaction, agentId: string, generation: number, atMost: number): Promise<number>;

  /** An active webhook, created now. */
  abstract insert(tx: Transaction, webhook: NewWebhook): Promise<WebhookEntity>;

  /**
   * Applies the changes and stamps updated_at; answers the webhook as it now is, or null when it is gone.
   * Disabling an active webhook records disabled_by_owner as why; enabling it clears the reason.
   */
  abstract update(webhookId: string, changes: WebhookChanges): Promise<WebhookEntity | null>;

  /** The webhook, its deliveries and their attempts. */
  abstract delete(webhookId: string): Promise<void>;

  /**
   * agent.deleted: the user's webhooks of that agent generation or an older one (or from before
   * generations), never those a new agent with the id has made since. An event of an earlier version
   * (no generation) deletes every webhook of the user's agent.
   */
  abstract deleteOfAgent(agentId: string, userId: string, generation: number | undefined): Promise<void>;
}
