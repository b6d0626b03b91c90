import { IsOptional, IsString, IsUUID, Length, Matches } from 'class-validator';
import { UserScopedMessage } from './user-scoped.message';

export class CreateApiKeyMessage extends UserScopedMessage {
  @IsString()
  @Length(1, 128)
  name!: string;

  /** The console session that asked, when one did: a password reset lists (and may revoke) the keys sessions made. */
  @IsOptional()
  @IsUUID()
  session_id?: string;
}

export class RevokeApiKeyMessage extends UserScopedMessage {
  @IsString()
  key_id!: string;
}

export class VerifyApiKeyMessage {
  @Matches(/^[0-9a-f]{64}$/, { message: 'key_hash must be a hex SHA-256 digest' })
  key_hash!: string;
}

/** The reply to VerifyApiKeyMessage; null when no active key has that hash. */
export interface VerifiedApiKey {
  user_id: string;
  key_id: string;
}

export type ListApiKeysMessage = UserScopedMessage;
export type MeMessage = UserScopedMessage;
