import { describe, expect, it } from 'vitest';
import { messageHtml, messageText } from '../../src/lib/html/message-body';

describe('a thread entry body', () => {
  it('keeps what mail bodies carry and drops scripts, handlers, frames and unsafe URLs', () => {
    const html = messageHtml(
      '<p onclick="steal()">Hi <b>there</b> <a href="javascript:alert(1)">x</a> <a href="https://ok.test" target="_blank">ok</a></p><script>alert(1)</script><iframe src="https://evil.test"></iframe><img src="x" onerror="alert(1)"><style>p{}</style><table><tr><td colspan="2">c</td></tr></table>',
      'html',
    );
    expect(html).not.toMatch(/script|onclick|onerror|iframe|javascript:|style|alert/i);
    expect(html).toContain('<b>there</b>');
    expect(html).toContain('<a href="https://ok.test" target="_blank">ok</a>');
    expect(html).toContain('<td colspan="2">c</td>');
  });

  it('renders Markdown, then sanitizes what it renders', () => {
    const html = messageHtml(
      '**Thanks**, see [the guide](https://docs.test) and [bad](javascript:alert(1))\n\n<script>alert(1)</script>',
      'markdown',
    );
    expect(html).toContain('<strong>Thanks</strong>');
    expect(html).toContain('<a href="https://docs.test">the guide</a>');
    expect(html).not.toMatch(/<script|href="javascript/i);
  });

  it('decodes every character reference as a browser does: named, decimal, hex, and the legacy ones without a semicolon', () => {
    expect(
      messageText(
        '<p>Caf&eacute; &#8217;s &mdash; &#x2014; &#X263a; &hearts; &copy 2026 &amp;amp; AT&T &nosuchentity; &#0;</p>',
      ),
    ).toBe('Café ’s — — ☺ ♥ © 2026 &amp; AT&T &nosuchentity; \uFFFD');
  });

  it('reads as plain text for previews and search', () => {
    expect(messageText('<p>Hello&nbsp;<b>Ada</b> &amp; co</p><p>Line 2<br>Line 3</p><script>x()</script>')).toBe(
      'Hello Ada & co\nLine 2\nLine 3',
    );
  });
});
