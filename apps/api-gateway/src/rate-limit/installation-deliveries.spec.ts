import { RawBodyRequest } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InstallationChainKey } from '@aas/platform';
import type { FastifyRequest } from 'fastify';
import { GatewayEnv } from '../config/gateway.env';
import { InstallationDeliveries } from './installation-deliveries';

const KEY = Buffer.alloc(32, 7).toString('base64');
const BODY = '{"event":"run.completed"}';

describe(InstallationDeliveries.name, () => {
  const config = (key?: string) => ({ get: () => key }) as unknown as ConfigService<GatewayEnv, true>;
  const signed = (key = KEY, body = BODY, target = 't/token') =>
    InstallationChainKey.derivedFrom(key).sign({ rootRunId: '6c0b1f0e-8a4e-4c4e-9b7e-0d4c8f1e2a3b', depth: 1 }, { deliveryId: 'msg_1', body, target, now: new Date() });
  const request = (headers: Record<string, string>, url = '/hooks/t/token', body = BODY) =>
    ({ url, headers, rawBody: Buffer.from(body) }) as unknown as RawBodyRequest<FastifyRequest>;

  it("recognises an inbound call carrying this installation's signed chain header for its webhook-id and body", () => {
    const sut = new InstallationDeliveries(config(KEY));
    expect(sut.sentByThisInstallation(request({ 'webhook-id': 'msg_1', 'aas-chain': signed() }))).toBe(true);
    expect(sut.sentByThisInstallation(request({ 'webhook-id': 'msg_1', 'aas-chain': signed() }, '/hooks/t/token?x=1'))).toBe(true);
  });

  it('does not recognise a captured header replayed onto another inbound URL (every receiver of a delivery gets one)', () => {
    const sut = new InstallationDeliveries(config(KEY));
    expect(sut.sentByThisInstallation(request({ 'webhook-id': 'msg_1', 'aas-chain': signed() }, '/hooks/t/other-token'))).toBe(false);
    expect(sut.sentByThisInstallation(request({ 'webhook-id': 'msg_1', 'aas-chain': signed() }, '/hooks/u/token'))).toBe(false);
    expect(sut.sentByThisInstallation(request({ 'webhook-id': 'msg_1', 'aas-chain': signed(KEY, BODY, '') }))).toBe(false);
  });

  it('does not recognise a forged or replayed-elsewhere header, a call to another route, or anything when it has no key', () => {
    const sut = new InstallationDeliveries(config(KEY));
    expect(sut.sentByThisInstallation(request({ 'webhook-id': 'msg_1', 'aas-chain': signed(Buffer.alloc(32, 8).toString('base64')) }))).toBe(false);
    expect(sut.sentByThisInstallation(request({ 'webhook-id': 'msg_2', 'aas-chain': signed() }))).toBe(false);
    expect(sut.sentByThisInstallation(request({ 'webhook-id': 'msg_1', 'aas-chain': signed() }, '/hooks/t/token', '{}'))).toBe(false);
    expect(sut.sentByThisInstallation(request({ 'webhook-id': 'msg_1', 'aas-chain': signed() }, '/v1/console/login'))).toBe(false);
    expect(sut.sentByThisInstallation(request({ 'webhook-id': 'msg_1' }))).toBe(false);
    expect(new InstallationDeliveries(config(undefined)).sentByThisInstallation(request({ 'webhook-id': 'msg_1', 'aas-chain': signed() }))).toBe(false);
  });
});
