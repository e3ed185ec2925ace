import { SETTING_KEYS, settingDef, type SettingSection } from '@shared/contract/settings';
import { SettingField } from '../SettingField';

/** The keys of the registry that belong to a section, in registry order. */
export const keysOf = (section: SettingSection) => SETTING_KEYS.filter((k) => settingDef(k).section === section);

/** Every key of a section as a field. */
export function SectionFields({ section }: { section: SettingSection }) {
  return (
    <>
      {keysOf(section).map((k) => (
        <SettingField key={k} k={k} />
      ))}
    </>
  );
}
