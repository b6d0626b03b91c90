import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'aas:is-public';

/** Marks a route that needs no API key (health probes, the OpenAPI document). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
