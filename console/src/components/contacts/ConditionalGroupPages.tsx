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
import {
  type EntryFormProps,
  NamedEntryDetail,
  NamedEntryForm,
  NewNamedEntry,
} from './NamedEntryPages';
import { NamedList } from './NamedList';

const PATH = '/contacts/conditional-groups';

export function ConditionalGroupList() {
  return (
    <NamedList<ConditionalGroup>
      title="Conditional groups"
      path={PATH}
      noun="conditional group"
      queryKey={CONDITIONAL_GROUPS_KEY}
      load={listConditionalGroups}
      column="Condition"
      describe={(group) => group.condition ?? ''}
    />
  );
}

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
  const { register, clearErrors, watch, errors, mutation, onSubmit } = useApiForm({
    defaultValues: { name: group?.name ?? '', condition: group?.condition ?? '' },
    fields: FIELDS,
    request: (values: ConditionalGroupFields) => values,
    mutationFn: save,
    onSuccess: onSaved,
  });
  const condition = useDebounced(watch('condition'), PREVIEW_DELAY_MS);
  const preview = usePreview(condition, 0);
  const previewError =
    condition.trim() !== '' && refusedCondition(preview.error) ? preview.error.message : undefined;
  return (
    <NamedEntryForm
      submitLabel={submitLabel}
      onSubmit={onSubmit}
      name={register('name')}
      nameError={errors.name?.message}
      errors={errors}
      pending={mutation.isPending}
      saved={mutation.isSuccess && group !== undefined}
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

const CONDITIONAL_GROUP = {
  noun: 'conditional group',
  path: PATH,
  queryKey: CONDITIONAL_GROUPS_KEY,
  get: getConditionalGroup,
  create: createConditionalGroup,
  update: updateConditionalGroup,
  remove: deleteConditionalGroup,
  Form: ConditionalGroupForm,
};

export function NewConditionalGroup() {
  return <NewNamedEntry kind={CONDITIONAL_GROUP} />;
}

export function ConditionalGroupDetail() {
  return <NamedEntryDetail kind={CONDITIONAL_GROUP} />;
}
