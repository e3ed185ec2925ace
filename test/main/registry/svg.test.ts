import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sanitizeSvg } from '../../../src/main/core/registry/svg-sanitize';

const iconDir = join(__dirname, '../../fixtures/registry/icons');

const clean = (svg: string): string => {
  const r = sanitizeSvg(svg);
  if (!r.ok) throw new Error(r.error);
  return r.svg;
};

describe('registry icon sanitizer', () => {
  it('keeps every real registry icon drawable and themable', () => {
    const files = readdirSync(iconDir).filter((f) => f.endsWith('.svg'));
    expect(files.length).toBeGreaterThanOrEqual(10);
    for (const f of files) {
      const original = readFileSync(join(iconDir, f), 'utf8');
      const out = clean(original);
      expect(out.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'), f).toBe(true);
      expect(out, f).toMatch(/viewBox="[^"]+"/);
      // As many shapes as the original.
      const shapes = (s: string) => (s.match(/<(path|circle|rect|polygon|ellipse|line|polyline)\b/g) ?? []).length;
      expect(shapes(out), f).toBe(shapes(original));
      // Every colour is currentColor or none.
      for (const m of out.matchAll(/(?:fill|stroke)="([^"]*)"/g)) expect(['currentColor', 'none'], f).toContain(m[1]);
      // The path data survives intact.
      const d = /\sd="([^"]{20})/.exec(original)?.[1];
      if (d) expect(out, f).toContain(d);
    }
  });

  it('removes scripts, event handlers, foreign objects, external references and entities', () => {
    const hostile = `<?xml version="1.0"?>
<!DOCTYPE svg [ <!ENTITY boom "&#x3C;script&#x3E;alert(1)&#x3C;/script&#x3E;"> ]>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="16" height="16" onload="alert(1)">
  <script>alert(1)</script>
  <script xlink:href="https://evil.example/x.js"/>
  <style>path { fill: url(https://evil.example/track.svg#a) }</style>
  <foreignObject width="16" height="16"><iframe xmlns="http://www.w3.org/1999/xhtml" src="https://evil.example"></iframe></foreignObject>
  <image href="https://evil.example/pixel.png" width="1" height="1"/>
  <a href="javascript:alert(1)"><path d="M0 0h1v1z"/></a>
  <use href="https://evil.example/sprite.svg#icon"/>
  <use xlink:href="#local"/>
  <animate attributeName="href" to="javascript:alert(1)"/>
  <path id="local" d="M0 0h16v16H0z" fill="#ff5500" stroke="red" onclick="alert(1)" style="fill: blue; stroke: url(http://evil.example/x); opacity: .5" filter="url(https://evil.example/f)"/>
  <circle cx="8" cy="8" r="4" fill="url(#grad)" mask="url(https://evil.example/m)"/>
  &boom;
</svg>`;
    const out = clean(hostile);
    expect(out).not.toMatch(/script|onload|onclick|foreignObject|iframe|<image|<a\b|animate|<style|evil\.example|javascript|ENTITY|&boom/i);
    expect(out).toContain('<use href="#local"/>');
    expect(out).toMatch(/<path id="local" d="M0 0h16v16H0z" fill="currentColor" stroke="currentColor" opacity=".5"\/>/);
    expect(out).toMatch(/<circle cx="8" cy="8" r="4" fill="url\(#grad\)"\/>/);
    expect(out).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="16" height="16" viewBox="0 0 16 16" fill="currentColor">/);
  });

  it('keeps mask luminance colours (mapping them would make the mask follow the theme)', () => {
    const out = clean(
      '<svg viewBox="0 0 16 16"><mask id="m"><rect width="16" height="16" fill="white"/><circle cx="8" cy="8" r="3" fill="#000"/></mask><rect width="16" height="16" fill="#123456" mask="url(#m)"/></svg>',
    );
    expect(out).toContain('<mask id="m"><rect width="16" height="16" fill="white"/><circle cx="8" cy="8" r="3" fill="#000"/></mask>');
    expect(out).toContain('<rect width="16" height="16" fill="currentColor" mask="url(#m)"/>');
  });

  it('refuses what is not an SVG image', () => {
    expect(sanitizeSvg('<html><body>hi</body></html>')).toMatchObject({ ok: false });
    expect(sanitizeSvg('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')).toMatchObject({ ok: false, error: expect.stringMatching(/no drawable/) });
    expect(sanitizeSvg('x'.repeat(300 * 1024))).toMatchObject({ ok: false, error: expect.stringMatching(/larger/) });
  });
});
