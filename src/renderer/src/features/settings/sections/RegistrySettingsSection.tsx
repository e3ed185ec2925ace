import { useEffect, useState } from 'react';
import { DEFAULT_REGISTRY_URL } from '@shared/contract/registry';
import { useApi } from '../../../app/api-context';
import { useSetting } from '../../../app/settings';
import { setRegistryUrl } from '../../registry';
import { ErrorAlert } from '../../../ui/Alert';

/** Where the ACP Registry is read from; the list is loaded again at once. */
export function RegistrySettingsSection() {
  const api = useApi();
  const url = useSetting('registry.url');
  const [text, setText] = useState(url);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setText(url), [url]);
  const save = async (value: string) => setError(await setRegistryUrl(api, value.trim() || null));
  return (
    <div className="setting-field" data-key="registry.url">
      <label htmlFor="setting-registry.url" className="setting-label">
        Registry source
      </label>
      <div className="setting-control">
        <input
          id="setting-registry.url"
          type="text"
          placeholder={DEFAULT_REGISTRY_URL}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && void save(text)}
          onBlur={() => text !== url && void save(text)}
          data-testid="setting-registry.url"
        />
        <button className="small" onClick={() => void save('')} disabled={url === ''}>
          Use the ACP Registry
        </button>
      </div>
      <div className="setting-description muted small">An http(s) or file: URL of a registry.json. Empty: the ACP Registry’s CDN.</div>
      {error && (
        <ErrorAlert>{error}</ErrorAlert>
      )}
    </div>
  );
}
