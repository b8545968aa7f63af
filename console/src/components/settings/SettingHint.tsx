import type { SettingDefinition } from '../../api/settings';

/** A setting's meaning, the values it takes and its default, all as the API describes them. */
export function SettingHint({ definition }: { definition: SettingDefinition }) {
  return (
    <>
      {definition.description} {allowedOf(definition)}
      <span className="default"> Default: {defaultOf(definition)}.</span>
    </>
  );
}

const count = new Intl.NumberFormat('en');

function allowedOf(definition: SettingDefinition): string {
  switch (definition.type) {
    case 'number':
      return definition.decimals
        ? `From ${count.format(definition.minimum ?? 0)} to ${count.format(definition.maximum ?? 0)}, at most ${definition.decimals} decimals.`
        : `A whole number from ${count.format(definition.minimum ?? 0)} to ${count.format(definition.maximum ?? 0)}.`;
    case 'text':
      // Empty allowed, a text has a meaning to say (send_window's syntax), not just a length.
      return definition.min_length === 0
        ? `${definition.allowed.charAt(0).toUpperCase()}${definition.allowed.slice(1)}.`
        : `${count.format(definition.min_length ?? 0)} to ${count.format(definition.max_length ?? 0)} characters.`;
    case 'flag':
    case 'choice':
      return '';
  }
}

function defaultOf(definition: SettingDefinition): string {
  switch (definition.type) {
    case 'flag':
      return definition.default === '1' ? 'on' : 'off';
    case 'choice':
      return (
        definition.choices?.find((choice) => choice.value === definition.default)?.label ??
        definition.default
      );
    case 'number':
      return definition.default;
    case 'text':
      return definition.default === '' ? 'empty' : `“${definition.default}”`;
  }
}
