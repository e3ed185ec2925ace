import { SectionFields } from './GenericSection';

/** Where the ACP Registry is read from; the registry list is loaded again when it changes (settings.changed). */
export function RegistrySettingsSection() {
  return <SectionFields section="registry" />;
}
