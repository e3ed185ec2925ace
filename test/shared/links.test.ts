import { describe, expect, it } from 'vitest';
import { checkExternalLink } from '../../src/shared/links';

describe('checkExternalLink', () => {
  it('admits http(s) links, normalised (a host in punycode, so look-alike letters show)', () => {
    expect(checkExternalLink(' https://Example.com/a b?x=1#y ')).toEqual({ ok: true, url: 'https://example.com/a%20b?x=1#y', host: 'example.com' });
    expect(checkExternalLink('http://exаmple.com/')).toEqual({ ok: true, url: 'http://xn--exmple-4nf.com/', host: 'xn--exmple-4nf.com' });
    expect(checkExternalLink('https://example.com:8443/')).toMatchObject({ ok: true, host: 'example.com:8443' });
  });

  it.each(['javascript:alert(1)', ' JavaScript:alert(1)', 'file:///etc/passwd', 'data:text/html,<script>1</script>', 'mailto:a@b.c', 'vscode://x', 'ms-settings:', 'not a url', '', 'https:', `https://e.com/${'a'.repeat(9000)}`])(
    'refuses %s',
    (raw) => {
      const r = checkExternalLink(raw);
      expect(r.ok).toBe(false);
    },
  );
});
