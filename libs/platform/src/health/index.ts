export * from './health-check';
export * from './health.controller';
export * from './dependency-checks';
export * from './service-health.module';
export * from './public.decorator';
