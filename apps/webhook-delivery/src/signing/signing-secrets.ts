import { Injectable } from '@nestjs/common';
import { SecretBox } from '@aas/platform';
import { LRUCache } from 'lru-cache';
import { generateSigningSecret } from './sign-payload';

/**
 * Webhooks' signing secrets, kept only sealed with WEBHOOK_SECRET_KEY (SecretBox): a new one is
 * returned once in the clear, when its webhook is created; the delivery worker opens them to sign.
 */
@Injectable()
export class SigningSecrets {
  /** Opened secrets by their sealed form: a new secret is a new key, so nothing stale is ever served. */
  private readonly opened = new LRUCache<string, string>({ max: 10_000 });

  constructor(private readonly box: SecretBox) {}

  /** A new signing secret, and the sealed form that is stored. */
  create(): { secret: string; sealed: string } {
    const secret = generateSigningSecret();
    return { secret, sealed: this.box.seal(secret) };
  }

  open(sealed: string): string {
    let secret = this.opened.get(sealed);
    if (secret === undefined) {
      secret = this.box.open(sealed);
      this.opened.set(sealed, secret);
    }
    return secret;
  }
}
