import { REDACTED, loggableUrl } from './loggable-url';

describe(loggableUrl.name, () => {
  const token = 'a'.repeat(43);

  it('redacts the path segment a secret route parameter matched', () => {
    expect(loggableUrl('/hooks/t-1/short', '/hooks/:trigger_id/:token')).toBe(`/hooks/t-1/${REDACTED}`);
    expect(loggableUrl('/answers/x/s3cret', '/answers/:id/:answer_secret')).toBe(`/answers/x/${REDACTED}`);
  });

  it('redacts a segment long enough to be a token, also where no route matched', () => {
    expect(loggableUrl(`/hooks/t-1/${token}/extra`)).toBe(`/hooks/t-1/${REDACTED}/extra`);
  });

  it('keeps ids and ordinary paths', () => {
    const id = '6f1c2a52-0d4b-4f55-9d7e-2f5a3c1b9e10';
    expect(loggableUrl(`/v1/agents/${id}/runs?limit=5&status=failed`, '/v1/agents/:agent_id/runs')).toBe(
      `/v1/agents/${id}/runs?limit=5&status=failed`,
    );
    expect(loggableUrl('/')).toBe('/');
  });

  it('redacts secret-named and token-long query values', () => {
    expect(loggableUrl('/x?token=abc&api_key=k&signature=s&q=1')).toBe(`/x?token=${REDACTED}&api_key=${REDACTED}&signature=${REDACTED}&q=1`);
    expect(loggableUrl(`/x?next=${token}`)).toBe(`/x?next=${REDACTED}`);
  });
});
