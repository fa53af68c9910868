import { startUpSteps } from '../src';

describe('startUpSteps', () => {
  it('closes what the service opened, in order, when a step fails, and passes the error on', async () => {
    const closed: string[] = [];
    const onShutdown = [async () => void closed.push('workers'), async () => void closed.push('database')];
    const failure = new Error('migration 004 failed');
    await expect(
      startUpSteps(onShutdown, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(closed).toEqual(['workers', 'database']);
  });

  it('closes nothing when every step succeeds', async () => {
    const closed: string[] = [];
    let ran = false;
    await startUpSteps([async () => void closed.push('database')], async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    expect(closed).toEqual([]);
  });
});
