import { ValidationError, ValidationPipe } from '@nestjs/common';
import * as classTransformer from 'class-transformer';
import { ValidationFailedError } from './domain-error';
import { FieldError } from './problem-detail';
import { checkRequestShape } from './request-shape';

export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({
      field,
      message: message.replace(error.property, field),
    }));
    return [...own, ...flattenValidationErrors(error.children ?? [], field)];
  });
}

/** Whitelisting validation whose failures are 400 Problem Details naming each failing field. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    // class-transformer, bounded: a request with too many members is a 400 before it walks them.
    transformerPackage: {
      plainToInstance: (cls, plain, options) => {
        checkRequestShape(plain);
        return classTransformer.plainToInstance(cls, plain, options);
      },
      classToPlain: (object, options) => classTransformer.instanceToPlain(object, options),
    },
    exceptionFactory: (errors) => {
      const fieldErrors = flattenValidationErrors(errors);
      const detail = fieldErrors.map((e) => e.message).join('; ') || 'Request validation failed';
      return new ValidationFailedError(detail, fieldErrors);
    },
  });
}
