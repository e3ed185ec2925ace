/**
 * Which links may leave the app for the system browser: http(s) only (no javascript:, file:, custom
 * schemes that start local programs). The renderer asks the user first; the main process checks again.
 */

export const MAX_LINK_LENGTH = 8192;

export type LinkCheck =
  /** `url` is the parsed, normalised form (a host in punycode), the one to show and to open. */
  | { ok: true; url: string; host: string }
  | { ok: false; reason: string };

export function checkExternalLink(raw: string): LinkCheck {
  const value = raw.trim();
  if (value.length > MAX_LINK_LENGTH) return { ok: false, reason: `the link is longer than ${MAX_LINK_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: 'it is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: `only http and https links are opened, not ${url.protocol.slice(0, 40)}` };
  if (!url.hostname) return { ok: false, reason: 'the link has no host' };
  return { ok: true, url: url.href, host: url.host };
}
