import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { type Contact, CONTACTS_KEY, searchContacts } from '../../api/contacts';
import { previewText, SCHEDULED_KEY } from '../../api/scheduled';
import { EntryPicker } from '../common/EntryPicker';
import { contactLabel } from './labels';
import { useDebounced } from '../common/useDebounced';

/**
 * The text as one chosen contact will receive it, rendered by the API with the dispatch's
 * template code (post_scheduled_preview), with the segments and encoding of that text.
 */
export function TextPreview({ text }: { text: string }) {
  const [contact, setContact] = useState<Contact | null>(null);
  const settled = useDebounced(text, 400);
  const preview = useQuery({
    queryKey: [...SCHEDULED_KEY, 'preview', settled, contact?.id],
    queryFn: () => previewText(settled, contact?.id ?? 0),
    enabled: contact !== null && settled !== '',
  });

  return (
    <section className="text-preview" aria-labelledby="text-preview-heading">
      <h3 id="text-preview-heading">Preview for a contact</h3>
      <EntryPicker<Contact>
        label="Contact to preview for"
        searchLabel="Search contacts by name"
        queryKey={CONTACTS_KEY}
        load={searchContacts}
        chosen={contact ? [contact] : []}
        onChange={(chosen) => setContact(chosen[chosen.length - 1] ?? null)}
        describe={contactLabel}
        single
      />
      {contact === null ? (
        <p className="muted">Choose a contact to see the text they will receive.</p>
      ) : settled === '' ? (
        <p className="muted">Write a text to preview it.</p>
      ) : preview.isError ? (
        <p className="error" role="alert">
          {preview.error.message}
        </p>
      ) : preview.data ? (
        <figure className="rendered">
          <figcaption>
            {contact.name} will receive ({preview.data.segments} SMS{' '}
            {preview.data.segments === 1 ? 'segment' : 'segments'}, {preview.data.encoding}):
          </figcaption>
          <blockquote aria-label={`Text for ${contact.name}`}>{preview.data.text}</blockquote>
        </figure>
      ) : (
        <p className="muted">Rendering…</p>
      )}
    </section>
  );
}
