import { create } from 'zustand';
import { Modal } from './Modal';
import { VisibleText } from './VisibleText';

interface Asking {
  title: string;
  message: string;
  /** Listed under the message (the commits a discard loses…). */
  details: string[];
  /** The button that goes ahead ("Apply", "Delete"…). */
  confirm: string;
  danger: boolean;
  answer(yes: boolean): void;
}

const useAsking = create<{ asking: Asking | null }>(() => ({ asking: null }));

/**
 * Asks the user to confirm, in the app's own dialog (not the browser's `confirm()`, which blocks the page and
 * looks foreign): resolves true when they go ahead, false when they cancel or close it.
 */
export function confirmDialog(p: { title: string; message: string; confirm: string; danger?: boolean; details?: string[] }): Promise<boolean> {
  useAsking.getState().asking?.answer(false);
  return new Promise((resolve) => {
    useAsking.setState({
      asking: {
        title: p.title,
        message: p.message,
        details: p.details ?? [],
        confirm: p.confirm,
        danger: p.danger ?? false,
        answer: (yes) => {
          useAsking.setState({ asking: null });
          resolve(yes);
        },
      },
    });
  });
}

/** Where the confirmation dialog shows; mounted once by the app. */
export function ConfirmHost() {
  const asking = useAsking((s) => s.asking);
  if (!asking) return null;
  return (
    <Modal label={asking.title} onClose={() => asking.answer(false)}>
      <div className="confirm-dialog" data-testid="confirm-dialog">
        <h2><VisibleText text={asking.title} /></h2>
        <p>{asking.message}</p>
        {asking.details.length > 0 && (
          <ul className="confirm-details" data-testid="confirm-details">
            {asking.details.map((d, i) => (
              // Details list names an agent may have made (files, commit subjects): controls and bidi are shown.
              <li key={i}>
                <VisibleText text={d} />
              </li>
            ))}
          </ul>
        )}
        <div className="form-actions">
          <button className={asking.danger ? 'danger' : 'primary'} autoFocus onClick={() => asking.answer(true)} data-testid="confirm-ok">
            {asking.confirm}
          </button>
          <button onClick={() => asking.answer(false)} data-testid="confirm-cancel">
            Cancel
          </button>
        </div>
      </div>
    </Modal>
  );
}
