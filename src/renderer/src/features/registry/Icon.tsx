import DOMPurify from 'dompurify';
import { useEffect, useState } from 'react';
import { useApi } from '../../app/api-context';
import type { Api } from '../../ipc/client';

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * The registry's SVG (already sanitized by the core) as a data: URL, sanitized again here with
 * DOMPurify's SVG profile. It is only ever used as a CSS mask image: an image cannot run script or
 * load anything, and the icon takes the text colour (monochrome, following the theme).
 */
export function svgToMaskUrl(svg: string): string | null {
  const clean = DOMPurify.sanitize(svg, {
    USE_PROFILES: { svg: true },
    FORBID_TAGS: ['style', 'image', 'foreignObject', 'a', 'script'],
    FORBID_ATTR: ['style'],
  });
  const doc = new DOMParser().parseFromString(clean, 'image/svg+xml');
  const root = doc.documentElement;
  if (root.nodeName !== 'svg' || doc.getElementsByTagName('parsererror').length > 0) return null;
  if (root.namespaceURI !== SVG_NS) root.setAttribute('xmlns', SVG_NS);
  // Only references inside the icon itself (<use href="#a">).
  for (const el of Array.from(root.querySelectorAll('*'))) {
    for (const attr of ['href', 'xlink:href']) {
      const v = el.getAttribute(attr);
      if (v !== null && !v.startsWith('#')) el.removeAttribute(attr);
    }
  }
  const text = new XMLSerializer().serializeToString(root);
  return `url("data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}")`;
}

type IconResult = { mask: string | null; error: string | null };
const cache = new Map<string, Promise<IconResult>>();

function loadIcon(api: Api, registryId: string, iconUrl: string): Promise<IconResult> {
  const key = `${registryId}\n${iconUrl}`;
  let p = cache.get(key);
  if (!p) {
    p = api.call('registry.icon', { registryId }).then((r) => {
      if (!r.ok) return { mask: null, error: r.error.message };
      if (!r.value.svg) return { mask: null, error: r.value.error };
      const mask = svgToMaskUrl(r.value.svg);
      return mask ? { mask, error: null } : { mask: null, error: 'the icon is not a usable SVG' };
    });
    cache.set(key, p);
    // Failures are retried the next time the icon is shown.
    void p.then((r) => r.mask === null && cache.delete(key));
  }
  return p;
}

/** An entry's icon, or its initial when it has none (or it could not be loaded). */
export function RegistryIcon({ registryId, name, icon }: { registryId: string; name: string; icon: string | null }) {
  const api = useApi();
  const [state, setState] = useState<IconResult | null>(null);
  useEffect(() => {
    if (!icon) {
      setState(null);
      return;
    }
    let stale = false;
    void loadIcon(api, registryId, icon).then((r) => !stale && setState(r));
    return () => {
      stale = true;
    };
  }, [api, registryId, icon]);
  if (state?.mask) {
    return <span className="reg-icon" role="img" aria-label={`${name} icon`} data-testid="entry-icon" style={{ maskImage: state.mask, WebkitMaskImage: state.mask }} />;
  }
  return (
    <span className="reg-icon reg-icon-letter" aria-hidden="true" title={state?.error ?? undefined} data-testid="entry-icon-fallback">
      {name.trim().charAt(0).toUpperCase() || '?'}
    </span>
  );
}
