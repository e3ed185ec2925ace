import { SETTING_KEYS, settingDef, type SettingKey, type SettingSection } from '@shared/contract/settings';
import { SettingField, type Choice } from '../SettingField';

/** The keys of the registry that belong to a section, in registry order. */
export const keysOf = (section: SettingSection) => SETTING_KEYS.filter((k) => settingDef(k).section === section);

/**
 * Every key of a section as a field: a key added to the registry shows in its section with nothing else to
 * write. `except`: keys the section edits with a view of its own (a list editor); `choices`: the values a
 * text key may take, known only at run time (the agents).
 */
export function SectionFields({ section, except = [], choices = {} }: { section: SettingSection; except?: readonly SettingKey[]; choices?: Partial<Record<SettingKey, Choice[]>> }) {
  return (
    <>
      {keysOf(section)
        .filter((k) => !except.includes(k))
        .map((k) => (
          <SettingField key={k} k={k} choices={choices[k]} />
        ))}
    </>
  );
}
