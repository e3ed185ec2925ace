import { net, protocol } from 'electron';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { contentSecurityPolicy } from '../csp';

export const APP_SCHEME = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://switchboard`;

/** Must run before app is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
  ]);
}

/** Serves the built renderer from app://switchboard/, with the CSP as a header, and nothing outside it. */
export function serveRenderer(rendererDir: string): void {
  const root = resolve(rendererDir);
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== 'switchboard') return new Response('not found', { status: 404 });
    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      return new Response('bad request', { status: 400 });
    }
    const rel = normalize(path).replace(/^([/\\])+/, '') || 'index.html';
    const file = join(root, rel);
    if (!file.startsWith(root + sep)) return new Response('not found', { status: 404 });
    const res = await net.fetch(pathToFileURL(file).toString());
    const headers = new Headers(res.headers);
    if (extname(file) === '.html') headers.set('content-security-policy', contentSecurityPolicy());
    headers.set('x-content-type-options', 'nosniff');
    return new Response(res.body, { status: res.status, headers });
  });
}
