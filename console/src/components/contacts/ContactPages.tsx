import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useLocation, useNavigate } from 'react-router';
import {
  CONTACTS_KEY,
  createContact,
  deleteContact,
  getContact,
  updateContact,
} from '../../api/contacts';
import { ConfirmDelete } from '../common/ConfirmDelete';
import { LoadError } from '../common/LoadError';
import { ContactForm } from './ContactForm';
import { BackTo } from './NamedEntryPages';
import { useEntryId } from './entry-route';

export function NewContact() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <section aria-labelledby="new-contact-title" className="entry-detail">
      <BackTo path="/contacts" label="contacts" />
      <h2 id="new-contact-title">New contact</h2>
      <ContactForm
        submitLabel="Create contact"
        save={createContact}
        onSaved={async (id) => {
          await queryClient.invalidateQueries({ queryKey: CONTACTS_KEY });
          await navigate(`/contacts/${Number(id)}`, { state: { created: true } });
        }}
      />
    </section>
  );
}

/** One contact: its form to change it, and delete. */
export function ContactDetail() {
  const id = useEntryId();
  const navigate = useNavigate();
  const { state } = useLocation() as { state: { created?: boolean } | null };
  const queryClient = useQueryClient();
  const contact = useQuery({ queryKey: [...CONTACTS_KEY, id], queryFn: () => getContact(id) });

  if (contact.isPending) {
    return <p role="status">Loading…</p>;
  }
  if (contact.isError) {
    return (
      <section>
        <BackTo path="/contacts" label="contacts" />
        <LoadError error={contact.error} retry={contact.refetch} />
      </section>
    );
  }
  return (
    <section aria-labelledby="contact-title" className="entry-detail">
      <BackTo path="/contacts" label="contacts" />
      <h2 id="contact-title">{contact.data.name}</h2>
      {state?.created && (
        <p className="saved" role="status">
          Contact created.
        </p>
      )}
      <ContactForm
        key={contact.data.id}
        entry={contact.data}
        submitLabel="Save contact"
        save={(fields) => updateContact(id, fields)}
        onSaved={async (saved) => {
          queryClient.setQueryData([...CONTACTS_KEY, id], saved);
          await queryClient.invalidateQueries({ queryKey: [...CONTACTS_KEY, 'list'] });
        }}
      />
      <div className="detail-actions">
        <ConfirmDelete
          what={`the contact ${contact.data.name}`}
          remove={() => deleteContact(id)}
          onDeleted={async () => {
            queryClient.removeQueries({ queryKey: CONTACTS_KEY });
            await navigate('/contacts');
          }}
        />
      </div>
    </section>
  );
}
