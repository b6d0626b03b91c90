import { TemplateRefused, checkTemplate, renderMessage } from './message-template';

describe(renderMessage.name, () => {
  const trigger = { id: 't1', name: 'push', kind: 'webhook' };

  it('fills names from the payload, headers, trigger and source run, without HTML escaping', () => {
    const view = {
      payload: { repository: { full_name: 'acme/app' }, commits: [{ id: 'a' }, { id: 'b' }], note: '<b>&' },
      headers: { 'x-github-event': 'push' },
      trigger,
      source_run: { summary: 'done' },
    };
    expect(renderMessage('{{headers.x-github-event}} to {{payload.repository.full_name}}: {{payload.note}} ({{trigger.name}}, {{source_run.summary}})', view)).toBe(
      'push to acme/app: <b>& (push, done)',
    );
    expect(renderMessage('{{#payload.commits}}[{{id}}]{{/payload.commits}}{{^payload.missing}} none{{/payload.missing}}', view)).toBe('[a][b] none');
  });

  it('renders objects as JSON and missing names as nothing', () => {
    expect(renderMessage('{{payload.repository}}|{{payload.nothing.here}}|', { payload: { repository: { id: 1 } }, trigger })).toBe('{"id":1}||');
  });

  it('runs no code: a payload cannot supply functions, and what looks like code stays text', () => {
    const view = { payload: JSON.parse('{"f": "function () { return 1 }", "list": [1, 2], "__proto__": {"polluted": true}}'), trigger };
    expect(renderMessage('{{payload.f}}|{{payload.constructor}}|{{payload.list.map}}|{{payload.f.length}}|{{payload.toString}}|{{#payload.list}}{{.}}{{/payload.list}}', view)).toBe(
      'function () { return 1 }|||24||12', // a string's own length is data
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('is undefined without a template, and never longer than a user_message may be', () => {
    expect(renderMessage(null, { trigger })).toBeUndefined();
    expect(renderMessage('{{payload.s}}{{payload.s}}', { payload: { s: 'x'.repeat(60_000) }, trigger })).toHaveLength(100_000);
  });
});

describe(checkTemplate.name, () => {
  it('refuses unbalanced sections and partials, and takes the rest', () => {
    expect(() => checkTemplate('{{#payload.a}} open')).toThrow(TemplateRefused);
    expect(() => checkTemplate('{{> other}}')).toThrow(/partials/);
    expect(() => checkTemplate('Deploy {{payload.ref}} {{#payload.x}}{{.}}{{/payload.x}}')).not.toThrow();
  });
});
