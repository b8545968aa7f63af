import {
  CONDITIONAL_GROUPS_KEY,
  type ConditionalGroup,
  type ConditionalGroupFields,
  createConditionalGroup,
  deleteConditionalGroup,
  getConditionalGroup,
  listConditionalGroups,
  updateConditionalGroup,
} from '../../api/conditional-groups';
import { useDebounced } from '../common/useDebounced';
import { Field } from '../forms/Field';
import { useApiForm } from '../forms/useApiForm';
import { ConditionPreview, refusedCondition, usePreview } from './ConditionPreview';
import { NamedEntryForm } from './NamedEntryPages';
import type { EntryFormProps, NamedEntryKind } from './named-entry';

const FIELDS = ['name', 'condition'] as const;

/** How long the condition must stay unchanged before it is previewed. */
const PREVIEW_DELAY_MS = 300;

/**
 * A conditional group's name and condition, with the contacts the condition selects now. A
 * condition the parser refuses shows its message, with the position, under the condition, from
 * the preview as it is typed or from the save.
 */
function ConditionalGroupForm({
  entry: group,
  save,
  onSaved,
  submitLabel,
}: EntryFormProps<ConditionalGroup, ConditionalGroupFields>) {
  const form = useApiForm({
    defaultValues: { name: group?.name ?? '', condition: group?.condition ?? '' },
    fields: FIELDS,
    request: (values: ConditionalGroupFields) => values,
    mutationFn: save,
    onSuccess: onSaved,
  });
  const { register, clearErrors, watch, errors } = form;
  const condition = useDebounced(watch('condition'), PREVIEW_DELAY_MS);
  const preview = usePreview(condition, 0);
  const previewError =
    condition.trim() !== '' && refusedCondition(preview.error) ? preview.error.message : undefined;
  return (
    <NamedEntryForm
      form={form}
      name={register('name')}
      editing={group !== undefined}
      submitLabel={submitLabel}
    >
      <Field
        label="Condition"
        error={errors.condition?.message ?? previewError}
        hint={
          <>
            An expression on the contact&apos;s data and its metas, such as{' '}
            <code>{"contact.city == 'Paris' and contact_metas.name matches '/^A/'"}</code>.
          </>
        }
        render={(props) => (
          <textarea
            {...props}
            {...register('condition', {
              // The save's refusal was of the text before; the preview judges the new one.
              onChange: () => clearErrors('condition'),
            })}
            rows={3}
            spellCheck={false}
          />
        )}
      />
      <ConditionPreview condition={condition} />
    </NamedEntryForm>
  );
}

/** Conditional groups: their condition in the list. */
export const CONDITIONAL_GROUP: NamedEntryKind<ConditionalGroup, ConditionalGroupFields> = {
  title: 'Conditional groups',
  noun: 'conditional group',
  path: '/contacts/conditional-groups',
  queryKey: CONDITIONAL_GROUPS_KEY,
  list: listConditionalGroups,
  column: 'Condition',
  describe: (group) => group.condition ?? '',
  get: getConditionalGroup,
  create: createConditionalGroup,
  update: updateConditionalGroup,
  remove: deleteConditionalGroup,
  Form: ConditionalGroupForm,
};
