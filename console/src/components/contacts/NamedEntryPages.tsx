import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEventHandler, ReactNode } from 'react';
import type { FieldErrors, UseFormRegisterReturn } from 'react-hook-form';
import { Link, Route, useLocation, useNavigate } from 'react-router';
import { ConfirmDelete } from '../common/ConfirmDelete';
import { LoadError } from '../common/LoadError';
import { Field, FormError } from '../forms/Field';
import { SavedNote, SubmitButton } from '../forms/SubmitButton';
import { NamedList } from './NamedList';
import { useEntryId } from './entry-route';
import { type NamedEntry, type NamedEntryKind, slugOf } from './named-entry';

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
  form: { onSubmit, errors, mutation },
  name,
  editing,
  submitLabel,
  children,
}: {
  /** The entry's useApiForm. */
  form: {
    onSubmit: FormEventHandler<HTMLFormElement>;
    errors: FieldErrors<{ name: string }>;
    mutation: { isPending: boolean; isSuccess: boolean };
  };
  name: UseFormRegisterReturn;
  /** An existing entry, said saved in place; a new one goes to its own page. */
  editing: boolean;
  submitLabel: string;
  children: ReactNode;
}) {
  return (
    <form className="entry-form" aria-label={submitLabel} noValidate onSubmit={onSubmit}>
      <Field
        label="Name"
        error={errors.name?.message}
        render={(props) => <input {...props} {...name} autoComplete="off" />}
      />
      {children}
      <FormError errors={errors} />
      <SubmitButton label={submitLabel} pendingLabel="Saving…" pending={mutation.isPending} />
      {editing && mutation.isSuccess && <SavedNote />}
    </form>
  );
}

/**
 * The list, new and detail pages of a kind at `path` under the page's Routes: a fragment of
 * Route elements, as Routes reads its children's props and renders no other component there.
 */
export function namedEntryRoutes<T extends NamedEntry, F>(
  path: string,
  kind: NamedEntryKind<T, F>,
) {
  return (
    <>
      <Route path={path} element={<NamedList kind={kind} />} />
      <Route path={`${path}/new`} element={<NewNamedEntry kind={kind} />} />
      <Route path={`${path}/:id`} element={<NamedEntryDetail kind={kind} />} />
    </>
  );
}

/** A new entry of a kind: its form, then the entry's page once created. */
export function NewNamedEntry<T extends NamedEntry, F>({ kind }: { kind: NamedEntryKind<T, F> }) {
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
export function NamedEntryDetail<T extends NamedEntry, F>({
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
