import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { hashSecret } from '../../auth/secrets';
import { textParam } from '../../http/params';
import { page, PAGE_HEADERS } from '../../lib/html/page';
import { PROOF_DAYS } from './email-proof';

export const HTML_ANSWER = { 'text/html': { schema: { type: 'string' } } } as const;
export const tokenParams = z.object({ token: textParam("the proof link's token (`hdv_…`)").pipe(z.string().max(64)) });

/** Whether a link's token has the form of one: any other is answered without asking the database. */
export const tokenForm = (token: string) => /^hdv_[A-Za-z0-9]{40}$/.test(token);

/** The contacts a link's token names while its link works: not followed yet, live, within `PROOF_DAYS` (over `contacts k`). */
export const working = async (token: string) =>
  sql`k.email_token_hash = ${await hashSecret(token)} AND k.state = 'active' AND k.created_at > now() - make_interval(days => ${PROOF_DAYS})`;

export const answer = (status: 200 | 404, title: string, content: string) =>
  new Response(page(title, content), { status, headers: PAGE_HEADERS });
export const notWorking = () =>
  answer(
    404,
    'Link not valid',
    '<h1>This link does not work</h1><p class="problem" role="alert">It was used already, has expired, or was mistyped.</p>',
  );
