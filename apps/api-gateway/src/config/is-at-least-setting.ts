import { ValidateBy, ValidationOptions } from 'class-validator';

/** A setting that must be at least another one of the same class (Node refuses a headers timeout above the request timeout). */
export function IsAtLeastSetting(other: string, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isAtLeastSetting',
      constraints: [other],
      validator: {
        validate: (value: unknown, args) => {
          const bound = (args?.object as Record<string, unknown>)[other];
          return typeof value !== 'number' || typeof bound !== 'number' || value >= bound;
        },
        defaultMessage: (args) => `${args?.property} must be at least ${other}`,
      },
    },
    options,
  );
}
