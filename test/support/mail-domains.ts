// Mail domains proven as an installation proves them: claimed through the API, the TXT record
// published on the DNS-over-HTTPS stand-in the Worker resolves with, then verified.
import { expect, inject } from 'vitest';
import { api } from './api';

/** Replaces `name`'s TXT records on the stand-in resolver ([] removes them). */
export async function publishTxt(name: string, values: string[]): Promise<void> {
  const response = await fetch(`${inject('dnsControlUrl')}/records`, {
    method: 'PUT',
    body: JSON.stringify({ name, type: 'TXT', values }),
  });
  expect(response.status).toBe(200);
}

export interface MailDomainRecord {
  id: number;
  name: string;
  verified: boolean;
  verifiedAt: string | null;
  dnsRecord: { type: 'TXT'; name: string; value: string };
}

/** `POST /v2/maildomains.json`: 201 and the claim. */
export async function claimMailDomain(key: string, name: string): Promise<MailDomainRecord> {
  const response = await api('/v2/maildomains.json', { method: 'POST', key, body: { maildomain: { name } } });
  expect(response.status, response.text).toBe(201);
  return response.body.maildomain;
}

/** Claims `name`, publishes its record and verifies it: the domain as a team that owns it has it. */
export async function verifiedMailDomain(key: string, name: string): Promise<MailDomainRecord> {
  const claim = await claimMailDomain(key, name);
  await publishTxt(claim.dnsRecord.name, [claim.dnsRecord.value]);
  const verified = await api(`/v2/maildomains/${claim.id}/verify.json`, { method: 'POST', key });
  expect(verified.status, verified.text).toBe(200);
  return verified.body.maildomain;
}
