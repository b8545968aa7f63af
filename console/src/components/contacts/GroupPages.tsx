import { Controller } from 'react-hook-form';
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
import { useApiForm } from '../forms/useApiForm';
import { GroupMembers } from './GroupMembers';
import { NamedList } from './NamedList';
import {
  type EntryFormProps,
  NamedEntryDetail,
  NamedEntryForm,
  NewNamedEntry,
} from './NamedEntryPages';

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
  entry: group,
  save,
  onSaved,
  submitLabel,
}: EntryFormProps<Group, GroupFields>) {
  const { register, control, errors, mutation, onSubmit } = useApiForm({
    defaultValues: { name: group?.name ?? '', contacts: group?.contacts ?? [] },
    fields: FIELDS,
    request: (values: Values) => ({
      name: values.name,
      contacts: values.contacts.map((contact) => contact.id),
    }),
    mutationFn: save,
    onSuccess: onSaved,
  });
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
    </NamedEntryForm>
  );
}

const GROUP = {
  noun: 'group',
  path: PATH,
  queryKey: GROUPS_KEY,
  get: getGroup,
  create: createGroup,
  update: updateGroup,
  remove: deleteGroup,
  deleteNote: '(its contacts stay)',
  Form: GroupForm,
};

export function NewGroup() {
  return <NewNamedEntry kind={GROUP} />;
}

export function GroupDetail() {
  return <NamedEntryDetail kind={GROUP} />;
}
