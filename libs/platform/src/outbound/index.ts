export * from './ssrf-guard';
