import { useState } from 'react';
import { CONTACTS_KEY, type Contact, searchContacts } from '../../api/contacts';
import { PAGE_SIZE } from '../../api/entries';
import { EntryPicker } from '../common/EntryPicker';
import { contactLabel } from '../send/labels';

/**
 * A group's members: those chosen, 25 a page, each with a button to take it out, and the
 * caller's contacts searched on the server, 25 a page, to add. A group holds at most the
 * API's 10,000 ids, which its update sends whole; the contacts it is chosen from are never all
 * loaded.
 */
export function GroupMembers({
  members,
  onChange,
  error,
}: {
  members: Contact[];
  onChange: (members: Contact[]) => void;
  error?: string;
}) {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(members.length / PAGE_SIZE));
  const shown = Math.min(page, pages - 1);
  const onPage = members.slice(shown * PAGE_SIZE, (shown + 1) * PAGE_SIZE);
  return (
    <div className="group-members">
      <section aria-labelledby="members-title" className="members">
        <h3 id="members-title">Members ({members.length})</h3>
        {members.length === 0 ? (
          <p className="empty">No members yet: add contacts found below.</p>
        ) : (
          <ul aria-label="Members">
            {onPage.map((member) => (
              <li key={member.id}>
                <span>{contactLabel(member)}</span>
                <button
                  type="button"
                  className="secondary"
                  aria-label={`Remove ${contactLabel(member)}`}
                  onClick={() => onChange(members.filter((other) => other.id !== member.id))}
                >
                  Remove
                </button>
              </li>
            ))}
          </ul>
        )}
        {pages > 1 && (
          <nav className="pager" aria-label="Pages of members">
            <button
              type="button"
              className="secondary"
              disabled={shown === 0}
              onClick={() => setPage(shown - 1)}
            >
              Previous
            </button>
            <span>
              Page {shown + 1} of {pages}
            </span>
            <button
              type="button"
              className="secondary"
              disabled={shown === pages - 1}
              onClick={() => setPage(shown + 1)}
            >
              Next
            </button>
          </nav>
        )}
      </section>
      <EntryPicker<Contact>
        label="Contacts to add"
        searchLabel="Search contacts by name"
        queryKey={CONTACTS_KEY}
        load={searchContacts}
        chosen={members}
        onChange={(chosen) => onChange(chosen)}
        describe={contactLabel}
        listChosen={false}
        error={error}
      />
    </div>
  );
}
