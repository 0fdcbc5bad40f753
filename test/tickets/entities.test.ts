// Character references in a thread entry's HTML are read as a browser reads them: a note, a reply
// and an edit store the text with named (`&eacute;`), decimal (`&#8217;`) and hex (`&#x2014;`)
// references decoded (the HTML standard's whole table, `entities`), and search finds the words
// (docs/resources/tickets.md, the thread entry's `textBody`).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';

let site: SeededInstallation;
let agent: string;
let inbox: number;

beforeAll(async () => {
  site = await newInstallation('entities');
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: agent })).body.inboxes[0].id;
});

const newTicket = async (subject: string) => {
  const made = await api('/v2/tickets.json', {
    method: 'POST',
    key: agent,
    body: { subject, inbox, customer: { email: 'entities@tickets.test' }, message: 'first' },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.ticket.id as number;
};
const post = async (ticket: number, body: Record<string, unknown>) => {
  const made = await api(`/v2/tickets/${ticket}/messages.json`, { method: 'POST', key: agent, body });
  expect(made.status, made.text).toBe(201);
  return made.body.message as { id: number; textBody: string; message: string };
};
const search = async (words: string) =>
  (await api('/v2/search/tickets.json', { key: agent, query: { search: words } })).body.tickets.map(
    (t: { id: number }) => t.id,
  );

describe('character references in an entry', () => {
  it('a note stores named, decimal and hex references decoded, the HTML as sent, and search finds the words', async () => {
    const ticket = await newTicket('Entities note');
    const note = await post(ticket, {
      message: '<p>Caf&eacute; cr&egrave;me &#8217;s &mdash; na&#xEF;ve &#x2014; &lt;b&gt; &amp;amp; 5&nbsp;&euro;</p>',
      threadType: 'note',
    });
    expect(note.textBody).toBe('Café crème ’s — naïve — <b> &amp; 5 €');
    expect(note.message).toContain('Caf&eacute;');
    expect(await search('café')).toContain(ticket);
    expect(await search('naïve')).toContain(ticket);
  });

  it('a reply and an edit decode alike; text that only looks like a reference stays as written', async () => {
    const ticket = await newTicket('Entities reply');
    const reply = await post(ticket, {
      message: '<p>R&eacute;sum&eacute; attached &#x263A; &#9731;</p>',
      threadType: 'message',
    });
    expect(reply.textBody).toBe('Résumé attached ☺ ☃');
    expect(await search('résumé')).toContain(ticket);
    const edited = await api(`/v2/messages/${reply.id}.json`, {
      method: 'PATCH',
      key: agent,
      body: { message: '<p>Se&ntilde;or &#169; AT&amp;T &unknownthing; 3 &lt; 4</p>' },
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.message.textBody).toBe('Señor © AT&T &unknownthing; 3 < 4');
    expect(await search('señor')).toContain(ticket);
  });
});
