import { ExternalLink, MessageCircleQuestion, TriangleAlert, Wrench } from 'lucide-react';
import { memo, useEffect, useId, useState, type FormEvent } from 'react';
import type { ElicitationEntry } from '@shared/acp-thread';
import { contentErrors, type ElicitationAction, type ElicitationContent, type ElicitationField, type ElicitationForm, type ElicitationValue } from '@shared/elicitation';
import { useApi } from '../../app/api-context';
import { requestOpenLink, UrlWithHost } from '../../app/link-confirm';
import { useNotices } from '../../app/notices';
import { useThreadNav } from './thread-nav';
import { VisibleText, visibleText } from '../../ui/VisibleText';

/**
 * The agent asks the user for input (ACP elicitation): a form built from its schema, or a URL to open in
 * the system browser. Everything in it is the agent's text, shown as plain text (never as markdown or
 * HTML); a URL opens only on the user's click, through the link confirmation.
 */

type Draft = Record<string, string | boolean | string[]>;

/** What the user typed so far, by request: it outlives the row of the virtualized thread (scrolled away and back). */
const kept = new Map<string, { draft: Draft; tried: boolean }>();

const label = (f: ElicitationField): string => f.title || f.name;

function initialDraft(form: ElicitationForm): Draft {
  const d: Draft = {};
  for (const f of form.fields) {
    switch (f.type) {
      case 'boolean':
        d[f.name] = f.default ?? false;
        break;
      case 'multi':
        d[f.name] = f.default ?? [];
        break;
      case 'number':
      case 'integer':
        d[f.name] = f.default === null ? '' : String(f.default);
        break;
      default:
        d[f.name] = f.default ?? '';
    }
  }
  return d;
}

/** The draft as the answer's content: empty text fields are left out (absent), numbers are parsed. */
function contentOf(form: ElicitationForm, draft: Draft): Record<string, ElicitationValue> {
  const out: Record<string, ElicitationValue> = {};
  for (const f of form.fields) {
    const v = draft[f.name];
    if (v === undefined) continue;
    if (f.type === 'number' || f.type === 'integer') {
      const s = String(v).trim();
      if (s !== '') out[f.name] = Number(s);
    } else if (typeof v === 'string') {
      if (v !== '') out[f.name] = v;
    } else if (Array.isArray(v)) {
      if (v.length > 0 || !f.required) out[f.name] = v;
    } else {
      out[f.name] = v;
    }
  }
  return out;
}

async function answer(api: ReturnType<typeof useApi>, sessionId: string, requestId: string, action: ElicitationAction, content?: ElicitationContent): Promise<boolean> {
  const r = await api.call(
    'sessions.respondElicitation',
    action === 'accept' ? { sessionId, requestId, action, ...(content ? { content } : {}) } : { sessionId, requestId, action },
  );
  if (!r.ok) useNotices.getState().push('error', `Could not answer the agent: ${r.error.message}`);
  return r.ok;
}

function FieldInput({ field: f, value, error, disabled, onChange }: { field: ElicitationField; value: Draft[string] | undefined; error: string | undefined; disabled: boolean; onChange: (v: Draft[string]) => void }) {
  const id = useId();
  const hint = f.description ? <div className="elicit-hint muted small">{f.description}</div> : null;
  const err = error ? (
    <div className="elicit-error" role="alert" data-testid="elicit-error">
      {error}
    </div>
  ) : null;
  const head = (
    <span className="elicit-label">
      {label(f)}
      {f.required && <span className="elicit-required" aria-label="required"> *</span>}
    </span>
  );
  switch (f.type) {
    case 'boolean':
      return (
        <div className="elicit-field" data-testid="elicit-field" data-name={f.name} data-type={f.type}>
          <label className="elicit-check">
            <input type="checkbox" checked={value === true} disabled={disabled} onChange={(e) => onChange(e.target.checked)} aria-invalid={Boolean(error)} />
            {head}
          </label>
          {hint}
          {err}
        </div>
      );
    case 'enum':
      return (
        <div className="elicit-field" data-testid="elicit-field" data-name={f.name} data-type={f.type}>
          <label htmlFor={id}>{head}</label>
          <select id={id} value={typeof value === 'string' ? value : ''} disabled={disabled} onChange={(e) => onChange(e.target.value)} aria-invalid={Boolean(error)}>
            <option value="">—</option>
            {f.options.map((o) => (
              <option key={o.value} value={o.value}>
                {visibleText(o.title)}
              </option>
            ))}
          </select>
          {hint}
          {err}
        </div>
      );
    case 'multi': {
      const list = Array.isArray(value) ? value : [];
      return (
        <fieldset className="elicit-field" data-testid="elicit-field" data-name={f.name} data-type={f.type} aria-invalid={Boolean(error)}>
          <legend>{head}</legend>
          {f.options.map((o) => (
            <label key={o.value} className="elicit-check">
              <input
                type="checkbox"
                checked={list.includes(o.value)}
                disabled={disabled}
                onChange={(e) => onChange(e.target.checked ? [...list, o.value] : list.filter((x) => x !== o.value))}
              />
              <VisibleText text={o.title} />
            </label>
          ))}
          {hint}
          {err}
        </fieldset>
      );
    }
    default: {
      const numeric = f.type === 'number' || f.type === 'integer';
      const placeholder =
        f.type === 'string' && f.format === 'date-time' ? '2026-01-31T09:30:00Z' : f.type === 'string' && f.format === 'email' ? 'name@example.com' : f.type === 'string' && f.format === 'uri' ? 'https://' : undefined;
      return (
        <div className="elicit-field" data-testid="elicit-field" data-name={f.name} data-type={f.type}>
          <label htmlFor={id}>{head}</label>
          <input
            id={id}
            type={f.type === 'string' && f.format === 'date' ? 'date' : 'text'}
            inputMode={numeric ? (f.type === 'integer' ? 'numeric' : 'decimal') : undefined}
            value={typeof value === 'string' ? value : ''}
            placeholder={placeholder}
            disabled={disabled}
            onChange={(e) => onChange(e.target.value)}
            aria-invalid={Boolean(error)}
            spellCheck={false}
          />
          {hint}
          {err}
        </div>
      );
    }
  }
}

function FormBody({ entry, sessionId, form }: { entry: ElicitationEntry; sessionId: string; form: ElicitationForm }) {
  const api = useApi();
  const key = `${sessionId}\0${entry.requestId}`;
  const [{ draft, tried }, setForm] = useState(() => kept.get(key) ?? { draft: initialDraft(form), tried: false });
  const [sending, setSending] = useState(false);
  useEffect(() => {
    kept.set(key, { draft, tried });
  }, [key, draft, tried]);
  const setDraft = (change: (d: Draft) => Draft) => setForm((f) => ({ ...f, draft: change(f.draft) }));
  const setTried = (v: boolean) => setForm((f) => ({ ...f, tried: v }));
  const content = contentOf(form, draft);
  const errors = tried ? contentErrors(form, content) : {};
  const send = async (action: ElicitationAction) => {
    if (action === 'accept') {
      setTried(true);
      if (Object.keys(contentErrors(form, content)).length > 0) return;
    }
    setSending(true);
    if (await answer(api, sessionId, entry.requestId, action, action === 'accept' ? content : undefined)) kept.delete(key);
    else setSending(false);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void send('accept');
  };
  return (
    <form className="elicit-form" onSubmit={submit} noValidate data-testid="elicit-form">
      {form.title && <div className="elicit-form-title"><VisibleText text={form.title} /></div>}
      {form.description && <div className="elicit-hint muted small">{form.description}</div>}
      {form.fields.map((f) => (
        <FieldInput key={f.name} field={f} value={draft[f.name]} error={errors[f.name]} disabled={sending} onChange={(v) => setDraft((d) => ({ ...d, [f.name]: v }))} />
      ))}
      <div className="elicit-actions">
        <button type="submit" className="primary" disabled={sending} data-testid="elicit-accept">
          Submit
        </button>
        <NoAnswer disabled={sending} send={send} />
      </div>
    </form>
  );
}

/** Decline (the agent hears no) and Dismiss (it hears cancel). */
function NoAnswer({ disabled, send }: { disabled: boolean; send: (action: ElicitationAction) => Promise<void> }) {
  return (
    <>
      <button type="button" disabled={disabled} onClick={() => void send('decline')} title="Tell the agent no" data-testid="elicit-decline">
        Decline
      </button>
      <button type="button" disabled={disabled} onClick={() => void send('cancel')} title="Close without answering (the agent hears cancel)" data-testid="elicit-cancel">
        Dismiss
      </button>
    </>
  );
}

function UrlBody({ entry, sessionId, pending }: { entry: ElicitationEntry; sessionId: string; pending: boolean }) {
  const api = useApi();
  const [sending, setSending] = useState(false);
  if (entry.request.mode !== 'url') return null;
  const { url, host, punycode } = entry.request;
  const send = async (action: ElicitationAction) => {
    setSending(true);
    if (!(await answer(api, sessionId, entry.requestId, action))) setSending(false);
  };
  return (
    <div className="elicit-url-body">
      <div className="elicit-domain" data-testid="elicit-domain">
        {host}
      </div>
      <div className="link-confirm-url" data-testid="elicit-url">
        <UrlWithHost url={url} host={host} />
      </div>
      {punycode && (
        <div className="permission-warning" role="alert" data-testid="elicit-punycode">
          <TriangleAlert size={13} /> The address is written in punycode: it may imitate another site’s name.
        </div>
      )}
      {pending && (
        <div className="elicit-actions">
          <button type="button" className="primary" disabled={sending} onClick={() => requestOpenLink(url, () => void send('accept'))} data-testid="elicit-open">
            <ExternalLink size={13} aria-hidden /> Open in browser…
          </button>
          <NoAnswer disabled={sending} send={send} />
        </div>
      )}
    </div>
  );
}

const display = (v: ElicitationValue, f: ElicitationField | undefined): string => {
  const title = (x: string) => (f && (f.type === 'enum' || f.type === 'multi') ? (f.options.find((o) => o.value === x)?.title ?? x) : x);
  if (Array.isArray(v)) return v.map(title).join(', ') || '(none)';
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  return typeof v === 'string' ? title(v) : String(v);
};

function Outcome({ entry }: { entry: ElicitationEntry }) {
  const { request } = entry;
  if (entry.state === 'decline') return <div className="elicit-outcome">You declined.</div>;
  if (entry.state === 'cancel') return <div className="elicit-outcome">Dismissed (not answered).</div>;
  if (request.mode === 'url') {
    return <div className="elicit-outcome">{entry.completed ? 'Opened in the browser; the agent says it is done.' : 'Opened in the browser; waiting for the agent to hear it is done.'}</div>;
  }
  const fields = new Map(request.form.fields.map((f) => [f.name, f]));
  const content = entry.content ?? {};
  return (
    <div className="elicit-outcome">
      You answered:
      <dl className="elicit-answers" data-testid="elicit-answers">
        {Object.entries(content).map(([k, v]) => (
          <div key={k}>
            <dt>{fields.get(k) ? label(fields.get(k)!) : k}</dt>
            <dd>{display(v, fields.get(k))}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

/** The tool call the question comes from (an MCP server's, during the call): a link to it in the thread. */
function AskedBy({ toolCallId }: { toolCallId: string }) {
  const nav = useThreadNav();
  const title = nav?.toolTitle(toolCallId) ?? null;
  return (
    <div className="elicit-tool muted small" data-testid="elicit-tool">
      <Wrench size={12} aria-hidden /> Asked during the tool call{' '}
      {title !== null && nav ? (
        <button type="button" className="link-button" onClick={() => nav.showTool(toolCallId)} title="Show the tool call in the thread" data-testid="elicit-tool-link">
          <VisibleText text={title} />
        </button>
      ) : (
        <code>{toolCallId}</code>
      )}
    </div>
  );
}

/** `stored`: a transcript (nothing can be answered any more). */
export const ElicitationView = memo(function ElicitationView({ entry, sessionId, stored }: { entry: ElicitationEntry; sessionId: string; stored: boolean }) {
  const pending = entry.state === 'pending' && !stored;
  const { request } = entry;
  return (
    <div
      className={`elicitation${pending ? ' needs-answer' : ''}`}
      role="group"
      aria-label={request.mode === 'url' ? 'The agent asks you to open a link' : 'The agent asks for input'}
      data-testid="elicitation"
      data-request-id={entry.requestId}
      data-mode={request.mode}
      data-state={entry.state}
      data-completed={entry.completed ? 'true' : undefined}
    >
      <div className="elicit-head">
        <MessageCircleQuestion size={14} aria-hidden /> <strong>{request.mode === 'url' ? 'The agent asks you to open a link' : 'The agent asks'}</strong>
      </div>
      <div className="elicit-message" data-testid="elicit-message">
        {request.message}
      </div>
      {request.toolCallId !== null && <AskedBy toolCallId={request.toolCallId} />}
      {request.mode === 'url' ? <UrlBody entry={entry} sessionId={sessionId} pending={pending} /> : pending ? <FormBody entry={entry} sessionId={sessionId} form={request.form} /> : null}
      {entry.state !== 'pending' ? <Outcome entry={entry} /> : !pending && <div className="elicit-outcome muted">Not answered.</div>}
    </div>
  );
});
