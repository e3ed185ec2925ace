import { ArrowDown, ArrowUp, Pencil, X } from 'lucide-react';
import { memo, useState } from 'react';
import type { PromptBlock, QueueItem } from '@shared/contract/sessions';
import { useApi } from '../../app/api-context';
import { useNotices } from '../../app/notices';
import { promptPreview } from '../../ui/format';

/** Prompts waiting for the current turn to end: edit, remove, reorder. */
export const QueuePanel = memo(function QueuePanel({ sessionId, items, waitingFor = null }: { sessionId: string; items: readonly QueueItem[]; waitingFor?: string | null }) {
  const api = useApi();
  const [editing, setEditing] = useState<{ id: string; text: string } | null>(null);
  if (items.length === 0) return null;
  const fail = (what: string, message: string) => useNotices.getState().push('error', `Could not ${what} the queued prompt: ${message}`);

  const save = async (item: QueueItem, text: string) => {
    const others = item.prompt.filter((b) => b.type !== 'text');
    const prompt: PromptBlock[] = [...(text.trim() ? [{ type: 'text' as const, text }] : []), ...others];
    if (prompt.length === 0) {
      const r = await api.call('sessions.queue.remove', { sessionId, itemId: item.id });
      if (!r.ok) fail('remove', r.error.message);
    } else {
      const r = await api.call('sessions.queue.update', { sessionId, itemId: item.id, prompt });
      if (!r.ok) fail('update', r.error.message);
    }
    setEditing(null);
  };

  return (
    <div className="queue" data-testid="queue" aria-label="Queued prompts">
      <div className="queue-head" data-testid="queue-head" data-waiting={waitingFor ? 'setup' : undefined}>
        {waitingFor ? <>Waiting for {waitingFor} to finish — then sent</> : 'Queued — sent when the agent is done'} <span className="muted">({items.length})</span>
      </div>
      <ol className="queue-list">
        {items.map((item, i) => (
          <li key={item.id} className="queue-item" data-testid="queue-item">
            {editing?.id === item.id ? (
              <>
                <textarea
                  autoFocus
                  value={editing.text}
                  aria-label="Edit queued prompt"
                  onChange={(e) => setEditing({ id: item.id, text: e.target.value })}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter' && !e.shiftKey) {
                      e.preventDefault();
                      void save(item, editing.text);
                    } else if (e.key === 'Escape') {
                      e.stopPropagation();
                      setEditing(null);
                    }
                  }}
                />
                <button onClick={() => void save(item, editing.text)}>Save</button>
                <button onClick={() => setEditing(null)}>Cancel</button>
              </>
            ) : (
              <>
                <span className="queue-text" title={promptPreview(item.prompt)}>
                  {promptPreview(item.prompt) || '(empty)'}
                </span>
                <button
                  className="icon"
                  aria-label="Edit"
                  title="Edit"
                  onClick={() => setEditing({ id: item.id, text: item.prompt.filter((b) => b.type === 'text').map((b) => (b.type === 'text' ? b.text : '')).join('') })}
                >
                  <Pencil size={12} />
                </button>
                <button
                  className="icon"
                  aria-label="Move up"
                  title="Move up"
                  disabled={i === 0}
                  onClick={() => void api.call('sessions.queue.move', { sessionId, itemId: item.id, toIndex: i - 1 }).then((r) => !r.ok && fail('move', r.error.message))}
                >
                  <ArrowUp size={12} />
                </button>
                <button
                  className="icon"
                  aria-label="Move down"
                  title="Move down"
                  disabled={i === items.length - 1}
                  onClick={() => void api.call('sessions.queue.move', { sessionId, itemId: item.id, toIndex: i + 1 }).then((r) => !r.ok && fail('move', r.error.message))}
                >
                  <ArrowDown size={12} />
                </button>
                <button
                  className="icon"
                  aria-label="Remove"
                  title="Remove"
                  onClick={() => void api.call('sessions.queue.remove', { sessionId, itemId: item.id }).then((r) => !r.ok && fail('remove', r.error.message))}
                >
                  <X size={12} />
                </button>
              </>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
});
