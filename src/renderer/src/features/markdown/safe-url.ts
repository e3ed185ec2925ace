/**
 * What a link or image in agent-written markdown may point at. Everything an agent sends is untrusted:
 * links never navigate the app (a click opens http(s) in the system browser, nothing else); images load
 * only from inline raster data (no remote fetches: no tracking pixels, and the CSP forbids them anyway).
 */

const RASTER_DATA_URL = /^data:image\/(png|jpeg|jpg|gif|webp|avif|bmp);base64,[A-Za-z0-9+/=\s]+$/i;

/** An http(s) URL that may be opened in the system browser, or null. */
export function externalHref(raw: string | undefined | null): string | null {
  if (!raw) return null;
  const value = raw.trim();
  if (!/^https?:\/\//i.test(value)) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** An image source that may be shown inline (raster data: URLs only; SVG can carry script), or null. */
export function inlineImageSrc(raw: string | undefined | null): string | null {
  if (!raw) return null;
  const value = raw.trim();
  return RASTER_DATA_URL.test(value) && value.length <= 10_000_000 ? value : null;
}

/** react-markdown's urlTransform: keeps http(s)/mailto links and raster data images, drops the rest. */
export function transformUrl(value: string, key: string, node: { tagName?: string }): string {
  if (node.tagName === 'img' && key === 'src') return inlineImageSrc(value) ?? externalHref(value) ?? '';
  if (externalHref(value)) return value.trim();
  if (/^mailto:/i.test(value.trim())) return value.trim();
  // In-document anchors (footnotes) are harmless; everything else (javascript:, file:, relative) is dropped.
  if (value.startsWith('#')) return value;
  return '';
}
