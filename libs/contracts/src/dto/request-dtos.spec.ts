import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate } from 'class-validator';
import * as dto from './index';
import { PutInstructionsRequest } from './instructions.dto';
import { RunEventsQuery } from './runs.dto';
import { UpdateWebhookRequest } from './webhooks.dto';
import { IS_WELL_FORMED_TEXT } from './text.validators';

type Meta = { propertyName: string; name?: string; each?: boolean };

/** Every request body and query class: what a client can send. */
const REQUEST_CLASSES = Object.entries(dto).filter(
  (entry): entry is [string, new () => object] => typeof entry[1] === 'function' && /(Request|Query|RestPlanStep)$/.test(entry[0]),
);

/** The string fields of a class (each: an array of strings), from its validators. */
function stringFields(cls: Function): { name: string; each: boolean }[] {
  const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false) as unknown as Meta[];
  return metas.filter((m) => m.name === 'isString').map((m) => ({ name: m.propertyName, each: Boolean(m.each) }));
}

async function failingFields(cls: new () => object, plain: Record<string, unknown>): Promise<string[]> {
  const errors = await validate(plainToInstance(cls, plain));
  return errors.map((e) => e.property);
}

describe('request DTOs refuse text PostgreSQL cannot store', () => {
  it('finds the request classes', () => {
    expect(REQUEST_CLASSES.map(([name]) => name)).toEqual(expect.arrayContaining(['PutInstructionsRequest', 'ListRunsQuery', 'CreateWorkspaceRequest']));
  });

  // Found by the hostile-input fuzz: U+0000 (text, jsonb) and lone surrogates (jsonb plan_steps) were 500s.
  const cases = REQUEST_CLASSES.flatMap(([name, cls]) => stringFields(cls).map((f) => [name, f.name, f.each, cls] as const));
  it.each(cases)('%s.%s', async (_name, field, each, cls) => {
    for (const bad of ['a\u0000b', '\ud800', 'x\udc00y', '\udc00\ud800']) {
      const value = each ? ['ok', bad] : bad;
      expect({ bad, failing: await failingFields(cls, { [field]: value }) }).toEqual({ bad, failing: expect.arrayContaining([field]) });
    }
    const clean = each ? ['ok 🤖 עברית'] : 'ok 🤖 עברית';
    const errors = await validate(plainToInstance(cls, { [field]: clean }));
    const own = errors.find((e) => e.property === field);
    expect(Object.keys(own?.constraints ?? {})).not.toContain(IS_WELL_FORMED_TEXT);
  });
});

describe(RunEventsQuery.name, () => {
  // Found by the hostile-input fuzz: after_index=99999999999999999999 reached PostgreSQL as an out-of-range bigint (a 500).
  it.each(['9007199254740992', '99999999999999999999', '1e21'])('refuses after_index %s', async (after_index) => {
    expect(await failingFields(RunEventsQuery, { after_index })).toEqual(['after_index']);
  });

  it('takes the largest safe integer', async () => {
    expect(await failingFields(RunEventsQuery, { after_index: String(Number.MAX_SAFE_INTEGER) })).toEqual([]);
  });
});

describe(UpdateWebhookRequest.name, () => {
  // Found by the hostile-input fuzz: null passed @IsOptional and reached a NOT NULL column (a 500).
  it.each(['url', 'events', 'status'])('refuses %s: null', async (field) => {
    expect(await failingFields(UpdateWebhookRequest, { [field]: null })).toEqual([field]);
  });

  it('still takes an empty patch and each field alone', async () => {
    expect(await failingFields(UpdateWebhookRequest, {})).toEqual([]);
    expect(await failingFields(UpdateWebhookRequest, { status: 'disabled' })).toEqual([]);
    expect(await failingFields(UpdateWebhookRequest, { events: ['run.failed'] })).toEqual([]);
    expect(await failingFields(UpdateWebhookRequest, { url: 'https://example.com/hook' })).toEqual([]);
  });
});

describe(PutInstructionsRequest.name, () => {
  const step = { title: 't', description: 'd', tools: ['x'], order: 0 };

  // Found by the hostile-input fuzz: ValidateNested passed an array item through, and [[]] was stored as a plan.
  it.each([[[[]]], [[[step]]], [['step']], [[null]]])('refuses plan_steps %j', async (plan_steps) => {
    expect(await failingFields(PutInstructionsRequest, { content: 'c', plan_steps })).toEqual(['plan_steps']);
  });

  it('takes a list of step objects', async () => {
    expect(await failingFields(PutInstructionsRequest, { content: 'c', plan_steps: [step, { ...step, order: 1, icon: null }] })).toEqual([]);
  });
});

describe(dto.UpdateAgentRequest.name, () => {
  const nested = async (plain: Record<string, unknown>) => {
    const errors = await validate(plainToInstance(dto.UpdateAgentRequest, plain));
    return errors.flatMap((e) => (e.children?.length ? e.children.map((c) => `${e.property}.${c.property}`) : [e.property]));
  };

  it('takes a name of 1 to 200 characters with an explanation of up to 2000, or null, or none', async () => {
    expect(await nested({ agent_name: { name: 'x'.repeat(200), explanation: 'y'.repeat(2000) } })).toEqual([]);
    expect(await nested({ agent_name: { name: 'n', explanation: null } })).toEqual([]);
    expect(await nested({ agent_name: { name: 'n' } })).toEqual([]);
  });

  it.each([
    ['no agent_name', {}, 'agent_name'],
    ['agent_name null', { agent_name: null }, 'agent_name'],
    ['agent_name a string', { agent_name: 'n' }, 'agent_name'],
    ['an empty name', { agent_name: { name: '' } }, 'agent_name.name'],
    ['a name past 200 characters', { agent_name: { name: 'x'.repeat(201) } }, 'agent_name.name'],
    ['an explanation past 2000 characters', { agent_name: { name: 'n', explanation: 'y'.repeat(2001) } }, 'agent_name.explanation'],
    ['a name with NUL', { agent_name: { name: 'a\u0000b' } }, 'agent_name.name'],
    ['an explanation with a lone surrogate', { agent_name: { name: 'n', explanation: '\ud800' } }, 'agent_name.explanation'],
  ])('refuses %s', async (_, plain, field) => {
    expect(await nested(plain)).toEqual([field]);
  });
});
