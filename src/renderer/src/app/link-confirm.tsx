import { useEffect, useRef } from 'react';
import { createPortal } from 'react-dom';
import { create } from 'zustand';
import { checkExternalLink } from '@shared/links';
import { useApi } from './api-context';
import { useNotices } from './notices';

/**
 * Links from agent content (markdown, terminal output, sign-in links) open in the system browser only
 * after the user has seen the whole URL and said so, as VS Code does for untrusted links. Anything but
 * http(s) is refused with a message. Where the main process cannot open a browser (browser mode), the
 * page opens a new tab itself, severed from this one; `onOpen` runs only once something really opened.
 */

type Pending = { kind: 'confirm'; url: string; host: string; onOpen?: (() => void) | undefined } | { kind: 'refused'; raw: string; reason: string };

const useLinkConfirm = create<{ pending: Pending | null }>(() => ({ pending: null }));

/** Asks the user to confirm opening `raw` (a link from content the app does not trust); `onOpen` runs once it is opened. */
export function requestOpenLink(raw: string, onOpen?: () => void): void {
  const check = checkExternalLink(raw);
  useLinkConfirm.setState({
    pending: check.ok ? { kind: 'confirm', url: check.url, host: check.host, onOpen } : { kind: 'refused', raw: raw.slice(0, 2000), reason: check.reason },
  });
}

/** The URL with its host emphasised (what the user must read to know where the link goes). */
export function UrlWithHost({ url, host }: { url: string; host: string }) {
  const at = url.indexOf(host, url.indexOf('//') + 2);
  if (at < 0) return <>{url}</>;
  return (
    <>
      <span className="link-confirm-rest">{url.slice(0, at)}</span>
      <strong className="link-confirm-host" data-testid="link-confirm-host">
        {host}
      </strong>
      <span className="link-confirm-rest">{url.slice(at + host.length)}</span>
    </>
  );
}

/** A new tab with no handle back to this page (the `noopener` of window.open, kept detectable); false when blocked. */
function openInPage(url: string): boolean {
  const tab = window.open('about:blank', '_blank');
  if (!tab) return false;
  tab.opener = null;
  tab.location.replace(url);
  return true;
}

/**
 * Opens an http(s) link in the system browser (app.openExternal) or, where the main process opens none
 * (browser mode), in a new tab of the page; true once something opened, else the user is told why. Call it
 * from a click: a page may open a tab only then (Chromium keeps the click's activation for seconds).
 */
export async function openExternalLink(api: ReturnType<typeof useApi>, url: string): Promise<boolean> {
  const r = await api.call('app.openExternal', { url });
  if (r.ok && (r.value.opened || openInPage(url))) return true;
  useNotices.getState().push('error', `The link was not opened: ${r.ok ? 'the browser blocked the new tab (allow pop-ups for Switchboard and try again)' : r.error.message}.`);
  return false;
}

export function LinkConfirmDialog() {
  const api = useApi();
  const pending = useLinkConfirm((s) => s.pending);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const close = () => useLinkConfirm.setState({ pending: null });

  useEffect(() => {
    if (!pending) return;
    cancelRef.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        close();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [pending]);

  if (!pending) return null;
  const open = () => {
    close();
    if (pending.kind === 'confirm') void openExternalLink(api, pending.url).then((opened) => opened && pending.onOpen?.());
  };
  return createPortal(
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      {pending.kind === 'confirm' ? (
        <div className="modal link-confirm" role="dialog" aria-modal="true" aria-label="Open link" data-testid="link-confirm">
          <h2>Open this link in your browser?</h2>
          <p className="muted small">It comes from content an agent wrote. Check where it goes:</p>
          <div className="link-confirm-url" data-testid="link-confirm-url">
            <UrlWithHost url={pending.url} host={pending.host} />
          </div>
          <div className="link-confirm-actions">
            <button type="button" ref={cancelRef} onClick={close} data-testid="link-confirm-cancel">
              Cancel
            </button>
            <button type="button" className="primary" onClick={open} data-testid="link-confirm-open">
              Open
            </button>
          </div>
        </div>
      ) : (
        <div className="modal link-confirm" role="alertdialog" aria-modal="true" aria-label="Link not opened" data-testid="link-refused">
          <h2>This link was not opened</h2>
          <p>Not opened because {pending.reason}.</p>
          <div className="link-confirm-url" data-testid="link-refused-url">
            {pending.raw}
          </div>
          <div className="link-confirm-actions">
            <button type="button" ref={cancelRef} onClick={close} data-testid="link-refused-ok">
              OK
            </button>
          </div>
        </div>
      )}
    </div>,
    document.body,
  );
}
