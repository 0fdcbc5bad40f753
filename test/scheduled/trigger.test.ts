import { describe, expect, it } from 'vitest';
import { runCron } from '../support/cron';

describe('cron trigger', () => {
  it('runs the scheduled handler in workerd and reports success', async () => {
    await expect(runCron(new Date('2026-11-22T12:00:00Z'))).resolves.toBeUndefined();
  });
});
