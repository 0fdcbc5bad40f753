// docs/tickets.md, the walkthrough a new user follows with curl, works as written and can run
// again: every command of the page is in scripts/ticket-walkthrough.sh, and the script runs twice
// against the Worker under test, as the page's demo owner would run it.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { newInstallation, rows } from '../support/db';
import { ensureDebianPackage, INSTALL_SETUP_TIMEOUT } from '../support/debian';

const run = promisify(execFile);
const script = new URL('../../scripts/ticket-walkthrough.sh', import.meta.url).pathname;
const page = readFileSync(new URL('../../docs/tickets.md', import.meta.url), 'utf8');
let site: SeededInstallation;

beforeAll(async () => {
  await ensureDebianPackage('/usr/bin/jq', 'jq');
  await ensureDebianPackage('/usr/bin/curl', 'curl');
  site = await newInstallation('walkthrough');
}, INSTALL_SETUP_TIMEOUT);

const walk = async () => {
  const { stdout } = await run('bash', [script], {
    env: { ...process.env, KEY: site.users.owner.apiKey, API: inject('workerUrl') },
    timeout: 120_000,
  });
  return stdout;
};

/** A command line of the page without its trailing answer comment; the page's placeholders (`KEY=hd_...`, the local address) left out. */
const commandsOf = (text: string) =>
  [...text.matchAll(/```sh\n([^]*?)```/g)]
    .flatMap(([, block]) => block!.split('\n'))
    .map((line) => line.replace(/\s+#\s.*$/, '').trimEnd())
    .filter((line) => line && !line.startsWith('#') && !/^(KEY|API)=/.test(line));

describe('docs/tickets.md', () => {
  it('has every command of the page in the script, in the same order', () => {
    const commands = commandsOf(page);
    expect(commands.length).toBeGreaterThan(25);
    let from = 0;
    for (const command of commands) {
      const at = readFileSync(script, 'utf8').indexOf(command, from);
      expect(at, `not in the script (or out of order): ${command}`).toBeGreaterThanOrEqual(0);
      from = at + command.length;
    }
  });

  it('runs as written, twice in a row, each step answering what the page shows', async () => {
    for (const round of [1, 2]) {
      const out = await walk();
      const ticket = Number(/^ticket (\d+)$/m.exec(out)?.[1]);
      expect(ticket, out).toBeGreaterThan(0);
      expect(out).toContain(
        '{"status":{"id":1,"type":"ticketstatuses"},"messageCount":1,"first":"<p>The <strong>total</strong> on invoice 1042 is twice the order.</p>","customer":"ann@example.com"}',
      );
      expect(out).toContain('upload 201');
      expect(out).toContain('{"confirmed":true,"size":14}');
      expect(out).toMatch(/^"note"\n"message"\n\{"id":3,"type":"ticketstatuses"\}$/m);
      expect(out).toContain(`[${ticket},1]`);
      expect(out).toMatch(/Content-Disposition: attachment; filename="invoice-1042.pdf"/i);
      expect(out).toContain(
        '["ticket.created","ticket.note","ticket.follower.added","ticket.agent.reply","ticket.status","ticket.assigned","ticket.tag.added","ticket.status"]',
      );
      expect(out).toContain('{"count":1,"seconds":900,"billableSeconds":900}');
      expect(out).toContain(`{"count":${round},"endOfStream":true,"hasCursor":true}`);
    }
    // one inbox and one tag however often it runs
    expect(
      await rows('SELECT count(*)::int AS n FROM inboxes WHERE installation_id = $1 AND name = $2', [
        site.id,
        'Billing',
      ]),
    ).toEqual([{ n: 1 }]);
    expect(
      await rows('SELECT count(*)::int AS n FROM tags WHERE installation_id = $1 AND name = $2', [site.id, 'billing']),
    ).toEqual([{ n: 1 }]);
    expect(
      await rows(
        "SELECT count(*)::int AS n FROM tickets WHERE installation_id = $1 AND subject = 'My invoice is wrong'",
        [site.id],
      ),
    ).toEqual([{ n: 2 }]);
  });
});
