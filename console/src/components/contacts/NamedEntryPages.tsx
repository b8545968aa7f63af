import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEventHandler, ReactNode } from 'react';
import type { FieldErrors, UseFormRegisterReturn } from 'react-hook-form';
import { Link, useLocation, useNavigate } from 'react-router';
import { ConfirmDelete } from '../common/ConfirmDelete';
import { LoadError } from '../common/LoadError';
import { Field, FormError } from '../forms/Field';
import { SavedNote, SubmitButton } from '../forms/SubmitButton';
import { useEntryId } from './entry-route';

/** Back to the list a page was opened from, with its search and page. */
export function BackTo({ path, label }: { path: string; label: string }) {
  const { state } = useLocation() as { state: { listSearch?: unknown } | null };
  const search = typeof state?.listSearch === 'string' ? state.listSearch : '';
  return (
    <p className="back">
      <Link to={`${path}${search}`}>← Back to {label}</Link>
    </p>
  );
}

/**
 * The frame of an entry's form (a contact, a group, a conditional group): its name first, the
 * entry's own fields, the error that names no field, the submit, and "Saved." once an existing
 * entry is saved.
 */
export function NamedEntryForm({
  submitLabel,
  onSubmit,
  name,
  nameError,
  errors,
  pending,
  saved,
  children,
}: {
  submitLabel: string;
  onSubmit: FormEventHandler<HTMLFormElement>;
  name: UseFormRegisterReturn;
  nameError?: string;
  errors: FieldErrors;
  pending: boolean;
  saved: boolean;
  children: ReactNode;
}) {
  return (
    <form className="entry-form" aria-label={submitLabel} noValidate onSubmit={onSubmit}>
      <Field
        label="Name"
        error={nameError}
        render={(props) => <input {...props} {...name} autoComplete="off" />}
      />
      {children}
      <FormError errors={errors} />
      <SubmitButton label={submitLabel} pendingLabel="Saving…" pending={pending} />
      {saved && <SavedNote />}
    </form>
  );
}

/** What an entry's form is given: the entry when it exists, and what saving does. */
export interface EntryFormProps<T, F> {
  entry?: T;
  save: (fields: F) => Promise<unknown>;
  onSaved: (saved: unknown) => unknown;
  submitLabel: string;
}

/** A kind of named entry with its own page under /contacts: its place, its API and its form. */
export interface NamedEntryKind<T extends { id: number; name: string }, F> {
  /** As the page says it: "group", "conditional group". */
  noun: string;
  path: string;
  queryKey: readonly unknown[];
  get: (id: number) => Promise<T>;
  create: (fields: F) => Promise<unknown>;
  update: (id: number, fields: F) => Promise<unknown>;
  remove: (id: number) => Promise<void>;
  /** Said after the name when asking to delete, e.g. what stays. */
  deleteNote?: string;
  Form: (props: EntryFormProps<T, F>) => ReactNode;
}

function slugOf(noun: string): string {
  return noun.replaceAll(' ', '-');
}

/** A new entry of a kind: its form, then the entry's page once created. */
export function NewNamedEntry<T extends { id: number; name: string }, F>({
  kind,
}: {
  kind: NamedEntryKind<T, F>;
}) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const titleId = `new-${slugOf(kind.noun)}-title`;
  return (
    <section aria-labelledby={titleId} className="entry-detail">
      <BackTo path={kind.path} label={`${kind.noun}s`} />
      <h2 id={titleId}>New {kind.noun}</h2>
      <kind.Form
        submitLabel={`Create ${kind.noun}`}
        save={kind.create}
        onSaved={async (id) => {
          await queryClient.invalidateQueries({ queryKey: kind.queryKey });
          await navigate(`${kind.path}/${Number(id)}`);
        }}
      />
    </section>
  );
}

/** An entry's page: its form, and its deletion that returns to the list. */
export function NamedEntryDetail<T extends { id: number; name: string }, F>({
  kind,
}: {
  kind: NamedEntryKind<T, F>;
}) {
  const id = useEntryId();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const entry = useQuery({ queryKey: [...kind.queryKey, id], queryFn: () => kind.get(id) });
  const back = <BackTo path={kind.path} label={`${kind.noun}s`} />;
  if (entry.isPending) {
    return <p role="status">Loading…</p>;
  }
  if (entry.isError) {
    return (
      <section>
        {back}
        <LoadError error={entry.error} retry={entry.refetch} />
      </section>
    );
  }
  const titleId = `${slugOf(kind.noun)}-title`;
  return (
    <section aria-labelledby={titleId} className="entry-detail">
      {back}
      <h2 id={titleId}>{entry.data.name}</h2>
      <kind.Form
        key={entry.data.id}
        entry={entry.data}
        submitLabel={`Save ${kind.noun}`}
        save={(fields) => kind.update(id, fields)}
        onSaved={async (saved) => {
          queryClient.setQueryData([...kind.queryKey, id], saved);
          await queryClient.invalidateQueries({ queryKey: [...kind.queryKey, 'list'] });
        }}
      />
      <div className="detail-actions">
        <ConfirmDelete
          what={`the ${kind.noun} ${entry.data.name}${kind.deleteNote ? ` ${kind.deleteNote}` : ''}`}
          remove={() => kind.remove(id)}
          onDeleted={async () => {
            queryClient.removeQueries({ queryKey: kind.queryKey });
            await navigate(kind.path);
          }}
        />
      </div>
    </section>
  );
}
