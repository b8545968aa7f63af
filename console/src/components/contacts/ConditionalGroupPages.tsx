import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
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
import { ConfirmDelete } from '../common/ConfirmDelete';
import { LoadError } from '../common/LoadError';
import { useDebounced } from '../common/useDebounced';
import { Field, FormError } from '../forms/Field';
import { showApiError } from '../forms/api-errors';
import { ConditionPreview, refusedCondition, usePreview } from './ConditionPreview';
import { BackTo } from './ContactPages';
import { NamedList } from './NamedList';
import { useEntryId } from './entry-route';

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
  group,
  save,
  onSaved,
  submitLabel,
}: {
  group?: ConditionalGroup;
  save: (fields: ConditionalGroupFields) => Promise<unknown>;
  onSaved: (saved: unknown) => unknown;
  submitLabel: string;
}) {
  const {
    register,
    handleSubmit,
    setError,
    clearErrors,
    watch,
    formState: { errors },
  } = useForm<ConditionalGroupFields>({
    defaultValues: { name: group?.name ?? '', condition: group?.condition ?? '' },
  });
  const condition = useDebounced(watch('condition'), PREVIEW_DELAY_MS);
  const preview = usePreview(condition, 0);
  const previewError =
    condition.trim() !== '' && refusedCondition(preview.error) ? preview.error.message : undefined;
  const mutation = useMutation({
    mutationFn: save,
    onSuccess: onSaved,
    onError: (error) => showApiError<ConditionalGroupFields>(error, FIELDS, setError),
  });
  return (
    <form
      className="entry-form"
      aria-label={submitLabel}
      noValidate
      onSubmit={(event) => void handleSubmit((values) => mutation.mutate(values))(event)}
    >
      <Field
        label="Name"
        error={errors.name?.message}
        render={(props) => <input {...props} {...register('name')} autoComplete="off" />}
      />
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
      <FormError errors={errors} />
      <button type="submit" disabled={mutation.isPending}>
        {mutation.isPending ? 'Saving…' : submitLabel}
      </button>
      {mutation.isSuccess && group && (
        <p className="saved" role="status">
          Saved.
        </p>
      )}
    </form>
  );
}

export function NewConditionalGroup() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <section aria-labelledby="new-conditional-group-title" className="entry-detail">
      <BackTo path={PATH} label="conditional groups" />
      <h2 id="new-conditional-group-title">New conditional group</h2>
      <ConditionalGroupForm
        submitLabel="Create conditional group"
        save={createConditionalGroup}
        onSaved={async (id) => {
          await queryClient.invalidateQueries({ queryKey: CONDITIONAL_GROUPS_KEY });
          await navigate(`${PATH}/${Number(id)}`);
        }}
      />
    </section>
  );
}

export function ConditionalGroupDetail() {
  const id = useEntryId();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const group = useQuery({
    queryKey: [...CONDITIONAL_GROUPS_KEY, id],
    queryFn: () => getConditionalGroup(id),
  });
  if (group.isPending) {
    return <p role="status">Loading…</p>;
  }
  if (group.isError) {
    return (
      <section>
        <BackTo path={PATH} label="conditional groups" />
        <LoadError error={group.error} retry={group.refetch} />
      </section>
    );
  }
  return (
    <section aria-labelledby="conditional-group-title" className="entry-detail">
      <BackTo path={PATH} label="conditional groups" />
      <h2 id="conditional-group-title">{group.data.name}</h2>
      <ConditionalGroupForm
        key={group.data.id}
        group={group.data}
        submitLabel="Save conditional group"
        save={(fields) => updateConditionalGroup(id, fields)}
        onSaved={async (saved) => {
          queryClient.setQueryData([...CONDITIONAL_GROUPS_KEY, id], saved);
          await queryClient.invalidateQueries({ queryKey: [...CONDITIONAL_GROUPS_KEY, 'list'] });
        }}
      />
      <div className="detail-actions">
        <ConfirmDelete
          what={`the conditional group ${group.data.name}`}
          remove={() => deleteConditionalGroup(id)}
          onDeleted={async () => {
            queryClient.removeQueries({ queryKey: CONDITIONAL_GROUPS_KEY });
            await navigate(PATH);
          }}
        />
      </div>
    </section>
  );
}
