import { ForbiddenError } from '@aas/problem-details';
import type { FastifyRequest } from 'fastify';
import { assertSameOrigin } from './same-origin';

const request = (headers: Record<string, string>, host = 'console.example:3000') => ({ headers, host }) as unknown as FastifyRequest;

describe(assertSameOrigin.name, () => {
  it.each([
    ['no browser headers (a program: left to the CSRF token)', {}],
    ['same-origin fetch', { 'sec-fetch-site': 'same-origin', origin: 'http://console.example:3000' }],
    ['an Origin of the same host in other case', { origin: 'HTTP://Console.Example:3000' }],
    ['a navigation typed by the user', { 'sec-fetch-site': 'none' }],
  ])('lets through %s', (_label, headers) => {
    expect(() => assertSameOrigin(request(headers))).not.toThrow();
  });

  it.each([
    ['another site', { 'sec-fetch-site': 'cross-site' }],
    ['a sibling subdomain', { 'sec-fetch-site': 'same-site' }],
    ['another origin', { origin: 'https://evil.example' }],
    ['the same host on another port', { origin: 'http://console.example:4000' }],
    ['an opaque origin', { origin: 'null' }],
  ])('refuses %s', (_label, headers) => {
    expect(() => assertSameOrigin(request(headers))).toThrow(ForbiddenError);
  });
});
