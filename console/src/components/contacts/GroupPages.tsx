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
import type { EntryFormProps, NamedEntryKind } from './named-entry';
import { NamedEntryForm } from './NamedEntryPages';

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
  const form = useApiForm({
    defaultValues: { name: group?.name ?? '', contacts: group?.contacts ?? [] },
    fields: FIELDS,
    request: (values: Values) => ({
      name: values.name,
      contacts: values.contacts.map((contact) => contact.id),
    }),
    mutationFn: save,
    onSuccess: onSaved,
  });
  const { register, control, errors } = form;
  return (
    <NamedEntryForm
      form={form}
      name={register('name')}
      editing={group !== undefined}
      submitLabel={submitLabel}
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

/** Groups: their members counted in the list, kept when a group is deleted. */
export const GROUP: NamedEntryKind<Group, GroupFields> = {
  title: 'Groups',
  noun: 'group',
  path: '/contacts/groups',
  queryKey: GROUPS_KEY,
  list: listGroups,
  column: 'Members',
  describe: (group) => String(group.nb_contact),
  get: getGroup,
  create: createGroup,
  update: updateGroup,
  remove: deleteGroup,
  deleteNote: '(its contacts stay)',
  Form: GroupForm,
};
