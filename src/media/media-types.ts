/**
 * The media types smsgw knows, by the extension of the stored file. A stored name's extension is
 * the safe one of the client's file name, or, for a name without one, the extension this table
 * gives the declared MIME type. It decides how the file is served, so the type a client
 * declares never reaches a browser: only image, audio and video types that browsers play
 * without running anything are shown inline; text, vCard and PDF are downloads of their own
 * type (MMS providers fetching a link read the type); anything else, HTML and SVG included, is
 * a download of `application/octet-stream`.
 */
interface MediaType {
  extension: string;
  type: string;
  inline: boolean;
}

const MEDIA_TYPES: readonly MediaType[] = [
  { extension: '.jpg', type: 'image/jpeg', inline: true },
  { extension: '.jpeg', type: 'image/jpeg', inline: true },
  { extension: '.png', type: 'image/png', inline: true },
  { extension: '.gif', type: 'image/gif', inline: true },
  { extension: '.webp', type: 'image/webp', inline: true },
  { extension: '.bmp', type: 'image/bmp', inline: true },
  { extension: '.mp3', type: 'audio/mpeg', inline: true },
  { extension: '.ogg', type: 'audio/ogg', inline: true },
  { extension: '.amr', type: 'audio/amr', inline: true },
  { extension: '.wav', type: 'audio/wav', inline: true },
  { extension: '.mp4', type: 'video/mp4', inline: true },
  { extension: '.3gp', type: 'video/3gpp', inline: true },
  { extension: '.txt', type: 'text/plain; charset=utf-8', inline: false },
  { extension: '.vcf', type: 'text/vcard; charset=utf-8', inline: false },
  { extension: '.pdf', type: 'application/pdf', inline: false },
];

const BY_EXTENSION = new Map(MEDIA_TYPES.map((media) => [media.extension, media]));

/** The first extension of each type, for uploads whose name has none. */
const BY_TYPE = new Map(
  [...MEDIA_TYPES].reverse().map((media) => [media.type.replace(/;.*$/, ''), media.extension]),
);

const DOWNLOAD: Omit<MediaType, 'extension'> = {
  type: 'application/octet-stream',
  inline: false,
};

/** How a stored file is served, by its extension (`.png`, or `''`). */
export function servedType(extension: string): Omit<MediaType, 'extension'> {
  return BY_EXTENSION.get(extension.toLowerCase()) ?? DOWNLOAD;
}

/** The extension for an upload without one, by its declared MIME type; `''` when unknown. */
export function extensionForType(mimetype: string): string {
  return BY_TYPE.get(mimetype.toLowerCase().replace(/;.*$/, '').trim()) ?? '';
}
