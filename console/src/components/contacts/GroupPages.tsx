import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Controller, useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import type { Contact } from '../../api/contacts';
import {
  createGroup,
  deleteGroup,
  getGroup,
  type Group,
  type GroupFields,
  GROUPS_KEY,
  listGroups,
  updateGroup,
} from '../../api/groups';
import { ConfirmDelete } from '../common/ConfirmDelete';
import { LoadError } from '../common/LoadError';
import { Field, FormError } from '../forms/Field';
import { showApiError } from '../forms/api-errors';
import { BackTo } from './ContactPages';
import { GroupMembers } from './GroupMembers';
import { NamedList } from './NamedList';
import { useEntryId } from './entry-route';

const PATH = '/contacts/groups';

export function GroupList() {
  return (
    <NamedList<Group>
      title="Groups"
      path={PATH}
      noun="group"
      queryKey={GROUPS_KEY}
      load={listGroups}
      column="Members"
      describe={(group) => String(group.nb_contact)}
    />
  );
}

interface Values {
  name: string;
  contacts: Contact[];
}

const FIELDS = ['name', 'contacts'] as const;

/** A group's name and members; the API's refusal is shown at the field it names. */
function GroupForm({
  group,
  save,
  onSaved,
  submitLabel,
}: {
  group?: Group;
  save: (fields: GroupFields) => Promise<unknown>;
  onSaved: (saved: unknown) => unknown;
  submitLabel: string;
}) {
  const {
    register,
    control,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<Values>({
    defaultValues: { name: group?.name ?? '', contacts: group?.contacts ?? [] },
  });
  const mutation = useMutation({
    mutationFn: save,
    onSuccess: onSaved,
    onError: (error) => showApiError<Values>(error, FIELDS, setError),
  });
  return (
    <form
      className="entry-form"
      aria-label={submitLabel}
      noValidate
      onSubmit={(event) =>
        void handleSubmit((values) =>
          mutation.mutate({
            name: values.name,
            contacts: values.contacts.map((contact) => contact.id),
          }),
        )(event)
      }
    >
      <Field
        label="Name"
        error={errors.name?.message}
        render={(props) => <input {...props} {...register('name')} autoComplete="off" />}
      />
      <Controller
        control={control}
        name="contacts"
        render={({ field }) => (
          <GroupMembers
            members={field.value}
            onChange={field.onChange}
            error={errors.contacts?.message}
          />
        )}
      />
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

export function NewGroup() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <section aria-labelledby="new-group-title" className="entry-detail">
      <BackTo path={PATH} label="groups" />
      <h2 id="new-group-title">New group</h2>
      <GroupForm
        submitLabel="Create group"
        save={createGroup}
        onSaved={async (id) => {
          await queryClient.invalidateQueries({ queryKey: GROUPS_KEY });
          await navigate(`${PATH}/${Number(id)}`);
        }}
      />
    </section>
  );
}

export function GroupDetail() {
  const id = useEntryId();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const group = useQuery({ queryKey: [...GROUPS_KEY, id], queryFn: () => getGroup(id) });
  if (group.isPending) {
    return <p role="status">Loading…</p>;
  }
  if (group.isError) {
    return (
      <section>
        <BackTo path={PATH} label="groups" />
        <LoadError error={group.error} retry={group.refetch} />
      </section>
    );
  }
  return (
    <section aria-labelledby="group-title" className="entry-detail">
      <BackTo path={PATH} label="groups" />
      <h2 id="group-title">{group.data.name}</h2>
      <GroupForm
        key={group.data.id}
        group={group.data}
        submitLabel="Save group"
        save={(fields) => updateGroup(id, fields)}
        onSaved={async (saved) => {
          queryClient.setQueryData([...GROUPS_KEY, id], saved);
          await queryClient.invalidateQueries({ queryKey: [...GROUPS_KEY, 'list'] });
        }}
      />
      <div className="detail-actions">
        <ConfirmDelete
          what={`the group ${group.data.name} (its contacts stay)`}
          remove={() => deleteGroup(id)}
          onDeleted={async () => {
            queryClient.removeQueries({ queryKey: GROUPS_KEY });
            await navigate(PATH);
          }}
        />
      </div>
    </section>
  );
}
