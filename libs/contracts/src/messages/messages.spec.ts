import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ListRunsMessage, PutInstructionsMessage, StartRunMessage } from './index';

const failing = (cls: new () => object, plain: object) =>
  validateSync(plainToInstance(cls, plain), { whitelist: true, forbidNonWhitelisted: true }).map((e) => e.property);

const ids = { user_id: '7d0c4d6e-7a5b-4b47-9a53-5a0f0f1f0c11', agent_id: 'a' };

describe('messages built from a request and a scope', () => {
  it('validate the request fields, nested ones included', () => {
    expect(failing(PutInstructionsMessage, { ...ids, content: 'c' })).toEqual([]);
    expect(failing(PutInstructionsMessage, { ...ids, content: 'c', plan_steps: [{ title: 't' }] })).toEqual(['plan_steps']);
    expect(failing(StartRunMessage, { ...ids, run_mode: 'fly' })).toEqual(['run_mode']);
  });

  it('validate the scope fields', () => {
    expect(failing(PutInstructionsMessage, { content: 'c', agent_id: 'a', user_id: 'not-a-uuid' })).toEqual(['user_id']);
    expect(failing(StartRunMessage, { user_id: ids.user_id })).toEqual(['agent_id']);
  });

  it('keep the request conversions (query strings to numbers)', () => {
    const message = plainToInstance(ListRunsMessage, { ...ids, page: '2', page_size: '10' });
    expect(message.page).toBe(2);
    expect(validateSync(message)).toEqual([]);
  });

  it('reject fields of neither side', () => {
    expect(failing(StartRunMessage, { ...ids, admin: true })).toEqual(['admin']);
  });
});
