import { IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';
import { EMAIL_MAX_LENGTH } from '../dto/console.dto';
import { IsEmailAddress } from '../dto/text.validators';

const SHA256_HEX = /^[0-9a-f]{64}$/;
const HASH_MESSAGE = { message: '$property must be a hex SHA-256 digest' };

/*
 * The gateway hashes passwords and tokens itself: neither a password nor a
 * session or setup token ever crosses the transport, only their hashes.
 */

/** gateway → agents-service: create the first user and its first session, spending the setup token. */
export class ConsoleSetupMessage {
  @Matches(SHA256_HEX, HASH_MESSAGE)
  setup_token_hash!: string;

  @IsEmailAddress()
  @MaxLength(EMAIL_MAX_LENGTH)
  email!: string;

  @IsString()
  @MaxLength(512)
  password_hash!: string;

  @Matches(SHA256_HEX, HASH_MESSAGE)
  session_token_hash!: string;
}

/** gateway → agents-service: whether this setup token would be accepted now (checked before the password is hashed). */
export class CheckSetupTokenMessage {
  @Matches(SHA256_HEX, HASH_MESSAGE)
  setup_token_hash!: string;
}

/** gateway → agents-service: the user and password hash to check a login against (null: no such user or no password). */
export class LoginCredentialsMessage {
  @IsString()
  @MaxLength(EMAIL_MAX_LENGTH)
  email!: string;
}

export interface LoginCredentials {
  user_id: string;
  password_hash: string;
}

/** gateway → agents-service: a session for a user whose password the gateway verified (`password_hash` as it was read). */
export class CreateConsoleSessionMessage {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(512)
  password_hash!: string;

  @Matches(SHA256_HEX, HASH_MESSAGE)
  session_token_hash!: string;

  /** A hash of the same password with today's parameters, to replace `password_hash` (rehash on sign-in). */
  @IsOptional()
  @IsString()
  @MaxLength(512)
  new_password_hash?: string;
}

export class ConsoleSessionTokenMessage {
  @Matches(SHA256_HEX, HASH_MESSAGE)
  session_token_hash!: string;
}

/** A live console session (agents-service's answer to create, setup and verify; null when none). */
export interface ConsoleSession {
  session_id: string;
  user_id: string;
  email: string;
  /** ISO 8601 UTC. */
  expires_at: string;
}
