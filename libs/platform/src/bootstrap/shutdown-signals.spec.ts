import { INestApplication } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { REPEATED_SIGNAL_MS, SignalTarget, exitCleanlyOnSignals } from './shutdown-signals';

/** A process that records its exits and the signals it sends itself. */
class FakeProcess extends EventEmitter {
  readonly pid = 4242;
  readonly exits: number[] = [];
  readonly selfSignals: string[] = [];
  exit(code: number): never {
    this.exits.push(code);
    return undefined as never;
  }
  kill(pid: number, signal: string): true {
    if (pid === this.pid) this.selfSignals.push(signal);
    return true;
  }
}

describe(exitCleanlyOnSignals.name, () => {
  let closes: number;
  let finishClose: () => void;
  const app = {
    close: () => {
      closes += 1;
      return new Promise<void>((resolve) => (finishClose = resolve));
    },
  } as unknown as INestApplication;
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  beforeEach(() => {
    closes = 0;
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
  });
  afterEach(() => jest.useRealTimers());

  function started(): FakeProcess {
    const target = new FakeProcess();
    exitCleanlyOnSignals(app, target as unknown as SignalTarget);
    return target;
  }

  it('closes the app once on SIGTERM or SIGINT and exits 0 when it has closed', async () => {
    for (const signal of ['SIGTERM', 'SIGINT']) {
      closes = 0;
      const target = started();
      target.emit(signal, signal);
      expect(closes).toBe(1);
      await settle();
      expect(target.exits).toEqual([]);
      finishClose();
      await settle();
      expect(target.exits).toEqual([0]);
    }
  });

  it('takes a repeat within the window (the terminal and npm start both sending Ctrl-C) as the same stop', async () => {
    const target = started();
    target.emit('SIGINT', 'SIGINT');
    jest.advanceTimersByTime(REPEATED_SIGNAL_MS - 1);
    target.emit('SIGINT', 'SIGINT');
    target.emit('SIGTERM', 'SIGTERM');
    expect(closes).toBe(1);
    expect(target.selfSignals).toEqual([]);
    finishClose();
    await settle();
    expect(target.exits).toEqual([0]);
  });

  it('ends at once, by the signal, on a later one: whoever sent it will not wait', () => {
    const target = started();
    target.emit('SIGTERM', 'SIGTERM');
    jest.advanceTimersByTime(REPEATED_SIGNAL_MS);
    target.emit('SIGINT', 'SIGINT');
    expect(target.selfSignals).toEqual(['SIGINT']);
    expect(target.listenerCount('SIGINT') + target.listenerCount('SIGTERM')).toBe(0);
    expect(closes).toBe(1);
  });
});
