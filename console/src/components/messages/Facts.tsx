import type { ReactNode } from 'react';

/** A message's facts as a list of terms and their values; a fact without a value (empty, null, false) is left out. */
export function Facts({ facts }: { facts: Array<[string, ReactNode]> }) {
  return (
    <dl className="facts">
      {facts
        .filter(
          ([, value]) => value !== null && value !== undefined && value !== '' && value !== false,
        )
        .map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
    </dl>
  );
}

/** A message's text as written, line ends kept. */
export function MessageText({ text }: { text: string }) {
  return <p className="message-body">{text || '(no text)'}</p>;
}

/** Links to a message's media files, which smsgw serves under `media/`. */
export function MediaLinks({ medias }: { medias: Array<{ id: number; path: string }> }) {
  if (medias.length === 0) {
    return null;
  }
  return (
    <ul className="media-links">
      {medias.map((media) => (
        <li key={media.id}>
          <a href={new URL(`media/${media.path}`, document.baseURI).href}>
            {media.path.split('/').pop()}
          </a>
        </li>
      ))}
    </ul>
  );
}
