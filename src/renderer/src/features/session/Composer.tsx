import { X } from 'lucide-react';
import type { AvailableCommand } from '@agentclientprotocol/sdk';
import fuzzysort from 'fuzzysort';
import { forwardRef, memo, useEffect, useImperativeHandle, useMemo, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent } from 'react';
import { MAX_PROMPT_TEXT, type SessionInfo } from '@shared/contract/sessions';
import { formatBytes } from '@shared/format-bytes';
import { useApi } from '../../app/api-context';
import { useConnection } from '../../ipc/connection';
import { buildPrompt, detectTrigger, type Mention, type PendingImage, type Trigger } from './prompt';

const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** "2.1 MB (2,100,000 characters)". */
const describeSize = (t: string): string => {
  return `${formatBytes(new TextEncoder().encode(t).length)} (${t.length.toLocaleString('en-US')} characters)`;
};

export interface ComposerHandle {
  focus(): void;
  isEmpty(): boolean;
  hasFocus(): boolean;
}

interface ComposerProps {
  session: SessionInfo | null;
  commands: readonly AvailableCommand[];
  /** A turn is running: Send queues, Stop and Esc cancel. */
  running: boolean;
  onSent(queued: boolean): void;
  onCancel(): void;
}

type MentionResult = { path: string; relativePath: string; root: string };

function readAsBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error('could not read the image'));
    reader.readAsDataURL(file);
  });
}

let imageCounter = 0;

/**
 * The prompt box: Enter sends (Shift+Enter for a new line), @ picks a file, / picks one of the agent's
 * commands, images can be pasted or dropped when the agent accepts them; while the agent works, what is
 * sent is queued and Esc stops the turn.
 */
const ComposerView = forwardRef<ComposerHandle, ComposerProps>(function Composer({ session, commands, running, onSent, onCancel }, ref) {
  const api = useApi();
  const area = useRef<HTMLTextAreaElement>(null);
  const [text, setText] = useState('');
  const [mentions, setMentions] = useState<Mention[]>([]);
  const [images, setImages] = useState<PendingImage[]>([]);
  const [trigger, setTrigger] = useState<Trigger | null>(null);
  const [dismissed, setDismissed] = useState(false);
  const [selected, setSelected] = useState(0);
  const [results, setResults] = useState<{ query: string; items: MentionResult[]; truncated: boolean } | null>(null);
  const [hint, setHint] = useState<{ level: 'info' | 'error'; text: string; action?: { label: string; run(): void } } | null>(null);
  const [sending, setSending] = useState(false);
  const sessionId = session?.id ?? null;
  const closedOrFailed = session?.status === 'failed' || session?.status === 'closed';
  const connected = useConnection((c) => c.connected);
  const canImage = Boolean(session?.prompt.image);

  useImperativeHandle(ref, () => ({
    focus: () => area.current?.focus(),
    isEmpty: () => text.trim() === '' && mentions.length === 0 && images.length === 0,
    hasFocus: () => document.activeElement === area.current,
  }));

  const updateTrigger = (value: string, caret: number) => {
    const t = detectTrigger(value, caret);
    const prev = trigger;
    if (t && (!prev || prev.kind !== t.kind || (t.kind === 'mention' && prev.kind === 'mention' && prev.start !== t.start))) setSelected(0);
    if (t && prev && t.kind === prev.kind && t.query === prev.query && (t.kind !== 'mention' || (prev.kind === 'mention' && t.start === prev.start))) return;
    setTrigger(t);
  };

  // @-mention search, lightly debounced while typing.
  const mentionQuery = trigger?.kind === 'mention' && !dismissed ? trigger.query : null;
  useEffect(() => {
    if (mentionQuery === null || !sessionId) return;
    let stale = false;
    const timer = setTimeout(async () => {
      const r = await api.call('sessions.mentionSearch', { sessionId, query: mentionQuery, limit: 30 });
      if (stale) return;
      if (r.ok) setResults({ query: mentionQuery, items: r.value.results, truncated: r.value.truncated });
      else setResults({ query: mentionQuery, items: [], truncated: false });
    }, 60);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [api, sessionId, mentionQuery]);

  const commandMatches = useMemo(() => {
    if (trigger?.kind !== 'command' || dismissed) return [];
    if (!trigger.query) return commands.slice(0, 50);
    return fuzzysort.go(trigger.query, commands as AvailableCommand[], { key: 'name', limit: 50 }).map((r) => r.obj);
  }, [trigger, commands, dismissed]);

  const pickerItems: Array<{ key: string; label: string; detail: string }> =
    trigger?.kind === 'mention' && !dismissed
      ? (results?.items ?? []).map((r) => ({ key: r.path, label: r.relativePath, detail: r.root }))
      : commandMatches.map((c) => ({ key: c.name, label: `/${c.name}`, detail: c.description }));
  const pickerOpen = trigger !== null && !dismissed && (trigger.kind === 'mention' || commands.length > 0);
  const sel = Math.min(selected, Math.max(0, pickerItems.length - 1));

  const setCaret = (pos: number) =>
    requestAnimationFrame(() => {
      area.current?.focus();
      area.current?.setSelectionRange(pos, pos);
    });

  const pick = (index: number) => {
    if (!trigger) return;
    const caret = area.current?.selectionStart ?? text.length;
    if (trigger.kind === 'mention') {
      const r = results?.items[index];
      if (!r) return;
      const token = `@${r.relativePath} `;
      const next = text.slice(0, trigger.start) + token + text.slice(caret);
      setText(next);
      setMentions((m) => (m.some((x) => x.path === r.path) ? m : [...m, { path: r.path, relativePath: r.relativePath }]));
      setTrigger(null);
      setCaret(trigger.start + token.length);
    } else {
      const c = commandMatches[index];
      if (!c) return;
      const space = text.search(/\s/);
      const rest = space === -1 ? '' : text.slice(space).replace(/^\s+/, '');
      const next = `/${c.name} ${rest}`;
      setText(next);
      setTrigger(null);
      setCaret(c.name.length + 2);
    }
  };

  const activeCommand = useMemo(() => {
    const m = /^\/(\S+)\s/.exec(text);
    return m ? commands.find((c) => c.name === m[1]) : undefined;
  }, [text, commands]);

  const send = async () => {
    if (!sessionId || sending || !connected) return;
    if (text.length > MAX_PROMPT_TEXT) return offerAsFile(text);
    const prompt = buildPrompt(text, mentions, images);
    if (prompt.length === 0) return;
    setSending(true);
    const r = await api.call('sessions.prompt', { sessionId, prompt });
    setSending(false);
    if (!r.ok) {
      setHint({ level: 'error', text: `Not sent: ${r.error.message}` });
      return;
    }
    setText('');
    setMentions([]);
    setImages([]);
    setTrigger(null);
    setHint(null);
    onSent(r.value.queued);
  };

  const addImages = async (files: File[]) => {
    const imgs = files.filter((f) => f.type.startsWith('image/'));
    if (imgs.length === 0) {
      if (files.length > 0) setHint({ level: 'info', text: 'Only images can be attached. Mention files with @ instead.' });
      return;
    }
    if (!canImage) {
      setHint({ level: 'info', text: 'This agent does not accept images (it did not advertise image prompts), so the image was not attached.' });
      return;
    }
    for (const f of imgs) {
      if (f.size > MAX_IMAGE_BYTES) {
        setHint({ level: 'error', text: `${f.name || 'The image'} is larger than 20 MB.` });
        continue;
      }
      try {
        const data = await readAsBase64(f);
        setImages((list) => [...list, { id: `img-${++imageCounter}`, mimeType: f.type, data, name: f.name || 'pasted image' }]);
        setHint(null);
      } catch (e) {
        setHint({ level: 'error', text: `Could not read the image: ${(e as Error).message}` });
      }
    }
  };

  /** Text too long for a message goes to the agent as a file of the session's folder, mentioned in the prompt. */
  const offerAsFile = (long: string) => {
    setHint({
      level: 'error',
      text: `This text is ${describeSize(long)}: a message holds at most ${MAX_PROMPT_TEXT.toLocaleString('en-US')} characters, so it was not pasted.`,
      action: {
        label: 'Attach it as a file',
        run: () => {
          if (!sessionId) return;
          void api.call('sessions.attachText', { sessionId, text: long }).then((r) => {
            if (!r.ok) return setHint({ level: 'error', text: `Could not save it as a file: ${r.error.message}` });
            const name = r.value.path.split(/[\\/]/).pop() ?? r.value.path;
            setMentions((m) => [...m, { path: r.value.path, relativePath: name }]);
            setHint({ level: 'info', text: `Saved as ${name} in the session folder and attached to this message.` });
          });
        },
      },
    });
  };

  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const pasted = e.clipboardData.getData('text/plain');
    if (pasted && text.length + pasted.length > MAX_PROMPT_TEXT) {
      e.preventDefault();
      offerAsFile(pasted);
      return;
    }
    const files = [...e.clipboardData.items].filter((i) => i.kind === 'file').map((i) => i.getAsFile()).filter((f): f is File => f !== null);
    if (files.length > 0) {
      e.preventDefault();
      void addImages(files);
    }
  };

  const onDrop = (e: DragEvent) => {
    if (e.dataTransfer.files.length === 0) return;
    e.preventDefault();
    void addImages([...e.dataTransfer.files]);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.nativeEvent.isComposing) return;
    if (pickerOpen && pickerItems.length > 0) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const d = e.key === 'ArrowDown' ? 1 : -1;
        setSelected((sel + d + pickerItems.length) % pickerItems.length);
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        pick(sel);
        return;
      }
    }
    if (pickerOpen && e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      setDismissed(true);
      return;
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      void send();
      return;
    }
    if (e.key === 'Escape' && running) {
      e.preventDefault();
      e.stopPropagation();
      onCancel();
    }
  };

  const empty = text.trim() === '' && mentions.length === 0 && images.length === 0;
  const placeholder = !connected
    ? 'Disconnected from Switchboard: you can write, and send once it is back.'
    : closedOrFailed
    ? 'The session cannot take prompts now.'
    : running
      ? 'The agent is working. What you send now is queued. Esc stops the turn.'
      : 'Message the agent — @ to mention a file, / for commands, Shift+Enter for a new line';

  return (
    <div className="composer" onDragOver={(e) => e.dataTransfer.types.includes('Files') && e.preventDefault()} onDrop={onDrop} data-testid="composer">
      {pickerOpen && (
        <div className="picker" role="listbox" aria-label={trigger?.kind === 'mention' ? 'Files' : 'Commands'} data-testid={trigger?.kind === 'mention' ? 'mention-picker' : 'command-palette'}>
          {pickerItems.length === 0 && (
            <div className="picker-empty muted">
              {trigger?.kind === 'mention' ? (results === null || results.query !== mentionQuery ? 'Searching…' : 'No matching files') : 'No matching commands'}
            </div>
          )}
          {pickerItems.map((item, i) => (
            <div
              key={item.key}
              role="option"
              aria-selected={i === sel}
              className={`picker-item${i === sel ? ' selected' : ''}`}
              onMouseDown={(e) => {
                e.preventDefault();
                pick(i);
              }}
              onMouseEnter={() => setSelected(i)}
              data-testid="picker-item"
            >
              <span className="picker-label">{item.label}</span>
              <span className="picker-detail">{item.detail}</span>
            </div>
          ))}
          {trigger?.kind === 'mention' && results?.truncated && <div className="picker-empty muted small">Large folder: not every file is searched.</div>}
        </div>
      )}
      {(mentions.length > 0 || images.length > 0) && (
        <div className="composer-attachments">
          {mentions.map((m) => (
            <span key={m.path} className="chip mention-chip" title={m.path} data-testid="mention-chip">
              @{m.relativePath}
              <button aria-label={`Remove ${m.relativePath}`} onClick={() => setMentions((list) => list.filter((x) => x.path !== m.path))}>
                <X size={12} />
              </button>
            </span>
          ))}
          {images.map((img) => (
            <span key={img.id} className="chip image-chip" title={img.name} data-testid="image-chip">
              <img src={`data:${img.mimeType};base64,${img.data}`} alt={img.name} />
              <button aria-label={`Remove ${img.name}`} onClick={() => setImages((list) => list.filter((x) => x.id !== img.id))}>
                <X size={12} />
              </button>
            </span>
          ))}
        </div>
      )}
      <div className="composer-row">
        <textarea
          ref={area}
          value={text}
          rows={Math.min(10, Math.max(2, text.split('\n').length))}
          placeholder={placeholder}
          disabled={closedOrFailed || !session}
          aria-label="Prompt"
          data-testid="prompt-input"
          onChange={(e) => {
            setText(e.target.value);
            // A word about what was typed or pasted goes with it when the box is cleared.
            if (e.target.value === '' && mentions.length === 0 && images.length === 0) setHint(null);
            setDismissed(false);
            updateTrigger(e.target.value, e.target.selectionStart);
          }}
          onSelect={(e) => updateTrigger(e.currentTarget.value, e.currentTarget.selectionStart)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          onBlur={() => setTrigger(null)}
        />
        <div className="composer-buttons">
          {running && (
            <button className="danger" onClick={onCancel} title="Stop the turn (Esc)" data-testid="stop-button">
              Stop
            </button>
          )}
          <button className="primary" onClick={() => void send()} disabled={empty || sending || closedOrFailed || !session || !connected}
            data-testid="send-button"
            title={!connected ? 'Disconnected from Switchboard' : running ? 'Queue this prompt (Enter)' : 'Send (Enter)'}
          >
            {running ? 'Queue' : 'Send'}
          </button>
        </div>
      </div>
      {activeCommand?.input?.hint && text.replace(/^\/\S+\s*/, '') === '' && (
        <div className="composer-hint muted" data-testid="command-hint">
          /{activeCommand.name}: {activeCommand.input.hint}
        </div>
      )}
      {hint && (
        <div className={`composer-hint ${hint.level}`} role={hint.level === 'error' ? 'alert' : 'status'} data-testid="composer-hint">
          {hint.text}
          {hint.action && (
            <button onClick={hint.action.run} data-testid="composer-hint-action">
              {hint.action.label}
            </button>
          )}
          <button className="link-button" onClick={() => setHint(null)} aria-label="Dismiss">
            <X size={12} />
          </button>
        </div>
      )}
    </div>
  );
});

/** Memoized: the session tab re-renders for every frame an agent streams, the composer only when its props change. */
export const Composer = memo(ComposerView);
