import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
// 96-bit IVs are GCM's native size; a fresh random one per seal keeps (key, IV) pairs from repeating.
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM encryption at rest of signing secrets (webhooks, inbound triggers), as `v1.<iv>.<tag>.<ciphertext>` (base64 parts). */
export class SecretBox {
  private readonly key: Buffer;

  constructor(keyBase64: string) {
    this.key = Buffer.from(keyBase64, 'base64');
    if (this.key.length !== KEY_BYTES) {
      throw new Error(`the secret encryption key must be ${KEY_BYTES} bytes in base64, got ${this.key.length} bytes`);
    }
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64'))].join('.');
  }

  open(sealed: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION) throw new Error(`a sealed secret must look like ${VERSION}.<iv>.<tag>.<ciphertext>`);
    const [iv, tag, ciphertext] = parts.slice(1).map((part) => Buffer.from(part, 'base64'));
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('a sealed secret has an IV or tag of the wrong length');
    // authTagLength pins the tag to 16 bytes: otherwise GCM accepts truncated tags, which are easier to forge.
    const decipher = createDecipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('a sealed secret failed authentication: it was altered or sealed with another key');
    }
  }
}
