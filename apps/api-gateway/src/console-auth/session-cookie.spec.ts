import { ConfigService } from '@nestjs/config';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayEnv } from '../config/gateway.env';
import { SessionCookie } from './session-cookie';

const TOKEN = 'A'.repeat(43);

function sut(secure: GatewayEnv['CONSOLE_COOKIE_SECURE'], publicBaseUrl = 'http://localhost:3000') {
  const env = { CONSOLE_COOKIE_SECURE: secure, PUBLIC_BASE_URL: publicBaseUrl } as Partial<GatewayEnv>;
  return new SessionCookie({ get: (name: keyof GatewayEnv) => env[name] } as ConfigService<GatewayEnv, true>);
}

const request = (cookies: Record<string, string>, protocol = 'http', headers: Record<string, string> = {}) =>
  ({ cookies, protocol, headers }) as unknown as FastifyRequest;

/** The name and options of the cookie `set` writes. */
function written(cookie: SessionCookie, req: FastifyRequest): { name: string; secure: boolean } {
  let seen = { name: '', secure: false };
  const reply = { setCookie: (name: string, _value: string, options: { secure: boolean }) => (seen = { name, secure: options.secure }) };
  cookie.set(reply as unknown as FastifyReply, req, TOKEN, new Date());
  return seen;
}

describe(SessionCookie.name, () => {
  it('over HTTPS per PUBLIC_BASE_URL, is Secure, named __Host-aas_session, and only that name is read', () => {
    const cookie = sut('auto', 'https://aas.example.com');
    expect(written(cookie, request({}))).toEqual({ name: '__Host-aas_session', secure: true });
    expect(cookie.tokenOf(request({ '__Host-aas_session': TOKEN }))).toBe(TOKEN);
    // A plain cookie planted by a sibling subdomain or an http:// page is not a session.
    expect(cookie.tokenOf(request({ aas_session: TOKEN }))).toBeUndefined();
  });

  it('over plain HTTP per PUBLIC_BASE_URL, is aas_session without Secure, whatever a header says', () => {
    const cookie = sut('auto', 'http://localhost:3000');
    const forwarded = request({ aas_session: TOKEN }, 'http', { 'x-forwarded-proto': 'https' });
    expect(written(cookie, forwarded)).toEqual({ name: 'aas_session', secure: false });
    expect(cookie.tokenOf(forwarded)).toBe(TOKEN);
  });

  it('obeys always and never over PUBLIC_BASE_URL', () => {
    expect(written(sut('always', 'http://localhost:3000'), request({}))).toEqual({ name: '__Host-aas_session', secure: true });
    expect(written(sut('never', 'https://aas.example.com'), request({}, 'https'))).toEqual({ name: 'aas_session', secure: false });
  });

  it('ignores a cookie that is not a session token', () => {
    expect(sut('never').tokenOf(request({ aas_session: 'short' }))).toBeUndefined();
  });
});
