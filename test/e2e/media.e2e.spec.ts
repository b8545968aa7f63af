import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { curlMultipart, FormPart } from '../support/curl';
import { describeEachDatabase } from '../support/databases';
import { makeUser } from '../support/factories';
import { PNG, storedScheduled } from '../support/scheduled.factories';

/*
 * The public media route (`/media/<user>/<file>`, the links of MMS sent as text) over real HTTP:
 * whatever a client uploads, smsgw's origin never serves it as an active document.
 */

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.domain)">' +
  '<script>alert(1)</script></svg>';
const HTML = '<!doctype html><script>fetch("/api/list/phone/?api_key=" + location.hash)</script>';

const LOCKED_DOWN = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
  'cache-control': 'public, max-age=31536000, immutable',
};

describeEachDatabase('media files', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  /** Uploads `files` as the medias of an MMS; their stored paths, in order. */
  const upload = async (files: FormPart[]): Promise<string[]> => {
    const { apiKey } = await makeUser(ds);
    const { body, contentType } = curlMultipart([
      { name: 'text', value: 'Look' },
      { name: 'mms', value: '1' },
      { name: 'numbers[]', value: '+33612345678' },
      ...files,
    ]);
    const response = await api(t, apiKey, 'query')
      .post('/api/scheduled/')
      .set('Content-Type', contentType)
      .send(body);
    expect(response.status).toBe(201);
    const stored = await storedScheduled(ds, (response.body as { response: number }).response);
    return stored.medias.map((media) => media.path);
  };

  const fetchMedia = (path: string): Promise<Response> =>
    request(t.url)
      .get(`/media/${path}`)
      .buffer(true)
      .parse((response, done) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => done(null, Buffer.concat(chunks)));
      });

  const nameOf = (path: string) => path.slice(path.indexOf('/') + 1);

  it('serves an uploaded HTML page as a download of octet-stream, never as text/html', async () => {
    const [path] = await upload([{ name: 'medias[]', value: HTML, filename: 'page.html' }]);

    const response = await fetchMedia(path);

    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      ...LOCKED_DOWN,
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="${nameOf(path)}"`,
    });
    expect(response.body).toEqual(Buffer.from(HTML));
  });

  it('serves an SVG, which can carry script, as a download of octet-stream, not as an image', async () => {
    const [path] = await upload([{ name: 'medias[]', value: SVG, filename: 'logo.svg' }]);

    const response = await fetchMedia(path);

    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      ...LOCKED_DOWN,
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="${nameOf(path)}"`,
    });
  });

  it('serves a PNG inline as image/png', async () => {
    const [path] = await upload([{ name: 'medias[]', value: PNG, filename: 'photo.png' }]);

    const response = await fetchMedia(path);

    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      ...LOCKED_DOWN,
      'content-type': 'image/png',
      'content-disposition': 'inline',
    });
    expect(response.body).toEqual(PNG);
  });

  it('serves a text file as a download of text/plain', async () => {
    const [path] = await upload([{ name: 'medias[]', value: 'hello', filename: 'notes.txt' }]);

    const response = await fetchMedia(path);

    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      ...LOCKED_DOWN,
      'content-type': 'text/plain; charset=utf-8',
      'content-disposition': `attachment; filename="${nameOf(path)}"`,
    });
  });

  it('takes the type from the stored extension, never from what the client declared', async () => {
    // An HTML page declared as a PNG keeps its .html name, so it is served as octet-stream; a
    // file named without an extension gets one from its declared type only when that type is in
    // smsgw's table, which text/html is not.
    const [disguised, nameless] = await upload([
      { name: 'medias[]', value: HTML, filename: 'page.html', type: 'image/png' },
      { name: 'medias[]', value: HTML, filename: 'page', type: 'text/html' },
    ]);

    expect(disguised).toMatch(/\.html$/);
    expect(nameless).toMatch(/\/[0-9a-f]{32}$/);
    for (const path of [disguised, nameless]) {
      const response = await fetchMedia(path);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/octet-stream');
      expect(response.headers['content-disposition']).toMatch(/^attachment; filename="/);
    }
  });

  it('answers 404 without the media headers for a media that does not exist', async () => {
    const response = await fetchMedia(`1/${'0'.repeat(32)}.png`);

    expect(response.status).toBe(404);
    expect(response.headers['content-disposition']).toBeUndefined();
  });
});
