import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, MaxLength } from 'class-validator';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../auth/password-hash';
import { IsEmailAddress, IsWellFormedText } from './text.validators';

export const EMAIL_MAX_LENGTH = 254;

export class ConsoleSetupStatus {
  @ApiProperty({ description: 'True while no user can sign in: the first-run page is open (with a setup token)' })
  setup_required!: boolean;
}

export class ConsoleSetupRequest {
  @ApiProperty({ description: 'The one-time token `npm start` and `cli setup-token` print', example: 'aas_setup_…' })
  @IsString()
  @MaxLength(128)
  @IsWellFormedText()
  setup_token!: string;

  @ApiProperty({ maxLength: EMAIL_MAX_LENGTH, example: 'you@example.com' })
  @IsString()
  @MaxLength(EMAIL_MAX_LENGTH)
  @IsWellFormedText()
  @IsEmailAddress()
  email!: string;

  @ApiProperty({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH })
  @IsString()
  @Length(PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH)
  @IsWellFormedText()
  password!: string;
}

export class ConsoleLoginRequest {
  @ApiProperty({ maxLength: EMAIL_MAX_LENGTH, example: 'you@example.com' })
  @IsString()
  @MaxLength(EMAIL_MAX_LENGTH)
  @IsWellFormedText()
  email!: string;

  @ApiProperty({ maxLength: PASSWORD_MAX_LENGTH })
  @IsString()
  @MaxLength(PASSWORD_MAX_LENGTH)
  @IsWellFormedText()
  password!: string;
}

/** The signed-in console user, and the CSRF token the console sends with every API call. */
export class ConsoleSessionResponse {
  @ApiProperty({ format: 'uuid' })
  user_id!: string;

  @ApiProperty()
  email!: string;

  @ApiProperty({ description: 'Send it as the x-csrf-token header on every API request made with the session cookie' })
  csrf_token!: string;

  @ApiProperty({ description: 'When the session ends, ISO 8601 UTC' })
  expires_at!: string;
}
