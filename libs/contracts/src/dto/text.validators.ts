import { ValidateBy, ValidationOptions, isEmail } from 'class-validator';

export const IS_WELL_FORMED_TEXT = 'isWellFormedText';

/** A UTF-16 surrogate without its other half: not a character, and not encodable as UTF-8. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** False for a string PostgreSQL cannot store as it is (in text and jsonb); anything else is left to the type checks. */
export function isWellFormedText(value: unknown): boolean {
  return typeof value !== 'string' || (!value.includes('\u0000') && !LONE_SURROGATE.test(value));
}

/**
 * PostgreSQL text and jsonb cannot hold U+0000, and jsonb refuses a lone
 * surrogate (text would silently get U+FFFD instead), so such a string fails
 * its INSERT or query with a database error (a 500). Every free-text field of
 * a request carries this check instead: a 400 naming the field.
 */
export function IsWellFormedText(options: ValidationOptions = {}): PropertyDecorator {
  return ValidateBy(
    {
      name: IS_WELL_FORMED_TEXT,
      validator: {
        validate: isWellFormedText,
        defaultMessage: () =>
          `${options.each ? 'each value in ' : ''}$property must be well-formed Unicode text without NUL (U+0000) characters`,
      },
    },
    options,
  );
}

/**
 * An email address (class-validator's isEmail, any TLD). isEmail throws on a lone
 * surrogate (its byte-length check URI-encodes the text), so text that is not
 * well formed is refused first: a 400, never a 500.
 */
export function IsEmailAddress(options: ValidationOptions = {}): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isEmailAddress',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && isWellFormedText(value) && isEmail(value, { require_tld: false }),
        defaultMessage: () => '$property must be an email address',
      },
    },
    options,
  );
}
