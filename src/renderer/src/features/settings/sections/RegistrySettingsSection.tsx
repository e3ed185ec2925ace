import { SettingField } from '../SettingField';

/** Where the ACP Registry is read from; the registry list is loaded again when it changes (settings.changed). */
export function RegistrySettingsSection() {
  return <SettingField k="registry.url" />;
}
