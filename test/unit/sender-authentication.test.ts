// Which `From` a mail's authentication results vouch for (src/resources/mail/sender-authentication.ts):
// only the topmost results field, only Email Routing's, only a pass aligned with the From domain.
import { describe, expect, it } from 'vitest';
import { checkSender } from '../../src/resources/mail/sender-authentication';

const field = (value: string, key = 'arc-authentication-results') => ({ key, value });

describe('checkSender', () => {
  it('takes DMARC, or DKIM or SPF aligned with the From domain (a parent domain aligns)', () => {
    expect(
      checkSender([field('i=1; mx.cloudflare.net; dmarc=pass (p=reject) header.from=acme.com')], 'ann@acme.com'),
    ).toEqual({ verified: true });
    expect(
      checkSender(
        [field('mx.cloudflare.net 1; dkim=pass header.d=acme.com header.s=x', 'authentication-results')],
        'ann@eu.acme.com',
      ),
    ).toEqual({ verified: true });
    expect(
      checkSender([field('i=1; mx.cloudflare.net; spf=pass smtp.mailfrom="bounce@acme.com"')], 'ann@acme.com'),
    ).toEqual({ verified: true });
    expect(checkSender([field('i=1; MX.Cloudflare.NET; DMARC=PASS header.from=ACME.com')], 'Ann@Acme.com')).toEqual({
      verified: true,
    });
  });

  it('refuses a pass for another domain, a parent that is a bare suffix, a fail, another server, or a pass below the topmost field', () => {
    expect(
      checkSender(
        [field('i=1; mx.cloudflare.net; dkim=pass header.d=evil.com; spf=pass smtp.mailfrom=x@evil.com')],
        'ann@acme.com',
      ).verified,
    ).toBe(false);
    expect(checkSender([field('i=1; mx.cloudflare.net; dkim=pass header.d=com')], 'ann@acme.com').verified).toBe(false);
    expect(
      checkSender([field('i=1; mx.cloudflare.net; dkim=pass header.d=notacme.com')], 'ann@acme.com').verified,
    ).toBe(false);
    expect(
      checkSender(
        [field('i=1; mx.cloudflare.net; dmarc=fail header.from=acme.com; dkim=fail header.d=acme.com')],
        'ann@acme.com',
      ),
    ).toEqual({ verified: false, why: 'neither DMARC, DKIM nor SPF passed for acme.com' });
    expect(
      checkSender([field('relay.evil.com; dmarc=pass header.from=acme.com', 'authentication-results')], 'ann@acme.com'),
    ).toEqual({ verified: false, why: "its authentication results are not mx.cloudflare.net's" });
    expect(
      checkSender(
        [
          field('i=1; mx.cloudflare.net; dmarc=none'),
          field('mx.cloudflare.net; dmarc=pass header.from=acme.com', 'authentication-results'),
        ],
        'ann@acme.com',
      ).verified,
    ).toBe(false);
    expect(checkSender([], 'ann@acme.com')).toEqual({
      verified: false,
      why: 'the message carries no authentication results',
    });
    expect(
      checkSender([field('i=1; relay.example; dmarc=pass header.from=acme.com')], 'ann@acme.com', 'relay.example'),
    ).toEqual({ verified: true });
  });
});
