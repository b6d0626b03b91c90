import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { CHAIN_HEADER_TOLERANCE_SECONDS, InstallationChainKey, inboundTargetOf } from './installation-chain';

const SECRET = Buffer.alloc(32, 7).toString('base64');
const ROOT = '6c0b1f0e-8a4e-4c4e-9b7e-0d4c8f1e2a3b';
const NOW = new Date('2026-03-01T12:00:00Z');

describe(InstallationChainKey.name, () => {
  const sut = InstallationChainKey.derivedFrom(SECRET);
  const call = { deliveryId: 'msg_1', body: '{"run_id":"x"}', target: `${ROOT}/token-1`, now: NOW };

  it('reads back the link it signed', () => {
    const header = sut.sign({ rootRunId: ROOT, depth: 3 }, call);
    expect(header).toMatch(new RegExp(`^v1,${ROOT},3,${NOW.getTime() / 1000},[A-Za-z0-9_-]{43}$`));
    expect(sut.verify(header, call)).toEqual({ rootRunId: ROOT, depth: 3 });
  });

  it('is keyed by HKDF-SHA256 of the secret, never by the secret itself', () => {
    const [, , , at, signature] = sut.sign({ rootRunId: ROOT, depth: 0 }, call).split(',');
    const signed = ['v1', ROOT, 0, at, call.deliveryId, createHash('sha256').update(call.body).digest('base64url'), call.target].join('.');
    const derived = Buffer.from(hkdfSync('sha256', Buffer.from(SECRET, 'base64'), Buffer.alloc(0), 'aas installation chain header v1', 32));
    expect(signature).toBe(createHmac('sha256', derived).update(signed).digest('base64url'));
    expect(signature).not.toBe(createHmac('sha256', Buffer.from(SECRET, 'base64')).update(signed).digest('base64url'));
    expect(InstallationChainKey.derivedFrom(Buffer.alloc(32, 8).toString('base64')).verify(sut.sign({ rootRunId: ROOT, depth: 0 }, call), call)).toBeNull();
  });

  it('ignores a header bound to another delivery id, body or endpoint, a changed root or depth, and a malformed one', () => {
    const header = sut.sign({ rootRunId: ROOT, depth: 2 }, call);
    const [v, root, depth, at, signature] = header.split(',');
    expect(sut.verify(header, { ...call, deliveryId: 'msg_2' })).toBeNull();
    expect(sut.verify(header, { ...call, body: '{"run_id":"y"}' })).toBeNull();
    expect(sut.verify(header, { ...call, target: `${ROOT}/token-2` })).toBeNull();
    expect(sut.verify(header, { ...call, target: '' })).toBeNull();
    expect(sut.verify(header, { ...call, deliveryId: '' })).toBeNull();
    expect(sut.verify([v, root, '1', at, signature].join(','), call)).toBeNull();
    expect(sut.verify([v, root.replace('6c0b', '6c0c'), depth, at, signature].join(','), call)).toBeNull();
    for (const value of [undefined, '', 'v1', `v2,${root},${depth},${at},${signature}`, `${header},x`, [v, 'not-a-uuid', depth, at, signature].join(','), [v, root, '-1', at, signature].join(',')]) {
      expect(sut.verify(value, call)).toBeNull();
    }
  });

  it(`ignores a header signed more than ${CHAIN_HEADER_TOLERANCE_SECONDS} s before or after the call`, () => {
    const header = sut.sign({ rootRunId: ROOT, depth: 1 }, call);
    const at = (seconds: number) => ({ ...call, now: new Date(NOW.getTime() + seconds * 1000) });
    expect(sut.verify(header, at(CHAIN_HEADER_TOLERANCE_SECONDS))).not.toBeNull();
    expect(sut.verify(header, at(CHAIN_HEADER_TOLERANCE_SECONDS + 1))).toBeNull();
    expect(sut.verify(header, at(-CHAIN_HEADER_TOLERANCE_SECONDS - 1))).toBeNull();
  });

  it("names an inbound URL's endpoint as the header is bound to it, whatever comes before /hooks/", () => {
    expect(inboundTargetOf(`/hooks/${ROOT}/tok_en-1`)).toBe(`${ROOT}/tok_en-1`);
    expect(inboundTargetOf(`/aas/hooks/${ROOT}/tok?x=1`)).toBe(`${ROOT}/tok`);
    expect(inboundTargetOf(`/hooks/${ROOT}/tok/`)).toBe(`${ROOT}/tok`);
    for (const path of ['/', '/v1/console/login', `/hooks/${ROOT}`, `/hooks/${ROOT}/tok/more`]) expect(inboundTargetOf(path)).toBe('');
  });
});
