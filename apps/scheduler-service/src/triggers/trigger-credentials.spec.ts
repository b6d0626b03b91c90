import { randomBytes } from 'node:crypto';
import { givenSecretFault, newTriggerSecret } from './trigger-credentials';

describe(givenSecretFault.name, () => {
  const whsec = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;

  it("takes a sender's secret of 24 to 64 bytes (Svix makes 24), and our own", () => {
    for (const secret of [whsec(24), whsec(32), whsec(64), newTriggerSecret()]) expect(givenSecretFault(secret)).toBeNull();
  });

  it('refuses too few or too many bytes, a missing prefix and base64 that does not read back the same', () => {
    expect(givenSecretFault(whsec(16))).toMatch(/24 to 64 bytes; this one holds 16/);
    expect(givenSecretFault(whsec(65))).toMatch(/this one holds 65/);
    expect(givenSecretFault(randomBytes(32).toString('base64'))).toMatch(/whsec_/);
    expect(givenSecretFault('whsec_')).toMatch(/base64/);
    expect(givenSecretFault(`${whsec(32)}A`)).toMatch(/base64/);
  });
});
