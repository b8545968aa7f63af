import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { MediaCollector } from '../../src/dispatch/media-collector';
import { chunks, rowMarks } from '../../src/database/driver/placeholders';
import { MediaRepository } from '../../src/media/media.repository';
import { startApp, TestApp } from '../support/app';
import { curlMultipart } from '../support/curl';
import { describeEachDatabase } from '../support/databases';
import { makeMedia, makeReceived, makeScheduled, makeSended, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';
import { countRows, PNG, storedScheduled } from '../support/scheduled.factories';

/*
 * The clean-up of medias nothing uses any more, on a real database and a real media folder: the
 * collector is called with the clock of the test (grace period 24 hours), never slept for.
 */

/** When the factories' medias were created; a day later they have served their grace period. */
const CREATED = '2024-01-02 03:04:05';
const at = (hoursAfterCreation: number) =>
  new Date(Date.parse(`${CREATED.replace(' ', 'T')}Z`) + hoursAfterCreation * 3_600_000);
const LATER = at(25);

describeEachDatabase('media collection', (database) => {
  let t: TestApp;
  let ds: DataSource;
  let collector: MediaCollector;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
    collector = t.app.get(MediaCollector);
  });
  afterAll(async () => {
    await t.close();
  });

  const mediaFile = (path: string) => join(t.config.dataDir, 'media', path);

  /** A media row of the user, created at CREATED, with its file written then. */
  const storedMedia = async (userId: number, createdAt = CREATED) => {
    const path = `${userId}/${randomBytes(16).toString('hex')}.png`;
    mkdirSync(join(t.config.dataDir, 'media', String(userId)), { recursive: true });
    writeFileSync(mediaFile(path), PNG);
    const written = new Date(`${createdAt.replace(' ', 'T')}Z`);
    utimesSync(mediaFile(path), written, written);
    return makeMedia(ds, userId, { path, created_at: createdAt });
  };

  const mediaExists = async (id: number) =>
    (await countRows(ds, 'SELECT COUNT(*) AS n FROM media WHERE id = ?', [id])) === 1;

  /** A recipient waiting in the outbox, its message already expanded (so no longer scheduled). */
  const queueRecipient = async (userId: number, mediaIds: number[]) => {
    await ds.query(
      'INSERT INTO outbox (id_user, originating_scheduled, destination, text, flash, mms, ' +
        'media_ids, state, attempts, next_attempt_at, created_at) ' +
        "VALUES (?, ?, ?, 'Look', 0, 1, ?, 'queued', 0, ?, ?)",
      [
        userId,
        900_000 + Math.floor(Math.random() * 100_000),
        '+33612345678',
        JSON.stringify(mediaIds),
        CREATED,
        CREATED,
      ],
    );
  };

  it('removes a media no entry links once the grace period is over, row and file, and keeps a younger one', async () => {
    const { user } = await makeUser(ds);
    const media = await storedMedia(user.id);

    expect(await collector.collect(at(23))).toMatchObject({ medias: 0 });
    expect(await mediaExists(media.id)).toBe(true);
    expect(existsSync(mediaFile(media.path))).toBe(true);

    await collector.collect(LATER);
    expect(await mediaExists(media.id)).toBe(false);
    expect(existsSync(mediaFile(media.path))).toBe(false);
  });

  it('keeps medias linked to a scheduled message, a sent entry or a received one, however old', async () => {
    const { user } = await makeUser(ds);
    const scheduled = await storedMedia(user.id);
    const sent = await storedMedia(user.id);
    const received = await storedMedia(user.id);
    await makeScheduled(ds, user.id, { mediaIds: [scheduled.id] });
    await makeSended(ds, user.id, { mediaIds: [sent.id] });
    await makeReceived(ds, user.id, { mediaIds: [received.id] });

    await collector.collect(at(24 * 365));

    for (const media of [scheduled, sent, received]) {
      expect(await mediaExists(media.id)).toBe(true);
      expect(existsSync(mediaFile(media.path))).toBe(true);
    }
  });

  it('keeps the medias of a message being sent, which only its outbox rows carry', async () => {
    const { user } = await makeUser(ds);
    const first = await storedMedia(user.id);
    const second = await storedMedia(user.id);
    const unused = await storedMedia(user.id);
    await queueRecipient(user.id, [first.id, second.id]);

    await collector.collect(LATER);

    expect(await mediaExists(first.id)).toBe(true);
    expect(await mediaExists(second.id)).toBe(true);
    expect(await mediaExists(unused.id)).toBe(false);
  });

  it('keeps a media whose outbox row is recorded as sent while the collection runs', async () => {
    const { user } = await makeUser(ds);
    const media = await storedMedia(user.id);
    await queueRecipient(user.id, [media.id]);
    const repository = t.app.get(MediaRepository);
    const queuedIds = repository.queuedIds.bind(repository);
    // The sender records the recipient after the collector found the media unlinked by any
    // entry, before it reads the outbox: one transaction moves the link to the sent entry.
    let moved = false;
    const spy = jest.spyOn(repository, 'queuedIds').mockImplementationOnce(async () => {
      moved = true;
      await ds.transaction(async (manager) => {
        const sended = await makeSended(manager.connection, user.id);
        await manager.query(
          'INSERT INTO media_sended (id_media, id_sended, created_at) VALUES (?, ?, ?)',
          [media.id, sended.id, CREATED],
        );
        await manager.query('DELETE FROM outbox WHERE id_user = ?', [user.id]);
      });
      return queuedIds();
    });
    try {
      await collector.collect(LATER);
    } finally {
      spy.mockRestore();
    }

    expect(moved).toBe(true);
    expect(await mediaExists(media.id)).toBe(true);
    expect(existsSync(mediaFile(media.path))).toBe(true);
  });

  it('deletes a scheduled MMS with its medias at once, and collection leaves no row and no file', async () => {
    const { user, apiKey } = await makeUser(ds);
    const { body, contentType } = curlMultipart([
      { name: 'text', value: 'Look' },
      { name: 'mms', value: '1' },
      { name: 'numbers[]', value: '+33612345678' },
      { name: 'at', value: '2099-01-01 00:00:00' },
      { name: 'medias[]', value: PNG, filename: 'one.png' },
      { name: 'medias[]', value: 'hello', filename: 'two.txt' },
    ]);
    const created = await request(t.url)
      .post('/api/scheduled/')
      .query({ api_key: apiKey })
      .set('Content-Type', contentType)
      .send(body);
    const id = (created.body as { response: number }).response;
    const medias = (await storedScheduled(ds, id)).medias;
    expect(medias).toHaveLength(2);

    const deleted = await request(t.url).delete(`/api/scheduled/${id}/`).set('X-Api-Key', apiKey);

    expect(deleted.status).toBe(200);
    const remaining = async () => ({
      rows: await countRows(ds, 'SELECT COUNT(*) AS n FROM media WHERE id_user = ?', [user.id]),
      files: medias.filter((media) => existsSync(mediaFile(media.path))).length,
    });
    expect(await remaining()).toEqual({ rows: 0, files: 0 });
    await collector.collect(new Date(Date.now() + 48 * 3_600_000));
    expect(await remaining()).toEqual({ rows: 0, files: 0 });
  });

  it('removes files without a row once older than the grace period, and nothing else in the folder', async () => {
    const { user } = await makeUser(ds);
    const folder = join(t.config.dataDir, 'media', String(user.id));
    mkdirSync(folder, { recursive: true });
    const stray = (name: string, written: Date) => {
      writeFileSync(join(folder, name), 'x');
      utimesSync(join(folder, name), written, written);
      return join(folder, name);
    };
    const old = stray(`${randomBytes(16).toString('hex')}.png`, at(0));
    const young = stray(`${randomBytes(16).toString('hex')}.png`, at(24));
    const foreign = stray('README.txt', at(0));
    const kept = await storedMedia(user.id);
    await makeSended(ds, user.id, { mediaIds: [kept.id] });

    const collected = await collector.collect(LATER);

    expect(collected.files).toBeGreaterThanOrEqual(1);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(young)).toBe(true);
    expect(existsSync(foreign)).toBe(true);
    expect(existsSync(mediaFile(kept.path))).toBe(true);
  });

  it('logs a file it cannot remove and goes on with the others', async () => {
    const { user } = await makeUser(ds);
    const stuck = await storedMedia(user.id);
    const removable = await storedMedia(user.id);
    // A folder where the file should be: unlink refuses it, even to root.
    await ds.query('UPDATE media SET path = ? WHERE id = ?', [`${user.id}/stuck`, stuck.id]);
    mkdirSync(mediaFile(`${user.id}/stuck/inside`), { recursive: true });
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      await collector.collect(LATER);
      expect(errors).toHaveBeenCalledWith(
        expect.anything(),
        `Could not remove the orphan media file ${user.id}/stuck`,
      );
    } finally {
      errors.mockRestore();
    }

    expect(await mediaExists(stuck.id)).toBe(false);
    expect(await mediaExists(removable.id)).toBe(false);
    expect(existsSync(mediaFile(removable.path))).toBe(false);
  });

  it('goes through every media in bounded ranges, in one collection', async () => {
    const { user } = await makeUser(ds);
    const values = Array.from({ length: 2500 }, (_, index) => [
      user.id,
      `${user.id}/${index.toString(16).padStart(32, '0')}.png`,
      CREATED,
    ]);
    for (const chunk of chunks(values, 500)) {
      await ds.query(
        `INSERT INTO media (id_user, path, created_at) VALUES ${rowMarks(chunk.length, 3)}`,
        chunk.flat(),
      );
    }
    const linked = await storedMedia(user.id);
    await makeSended(ds, user.id, { mediaIds: [linked.id] });

    await collector.collect(LATER);

    expect(
      await countRows(ds, 'SELECT COUNT(*) AS n FROM media WHERE id_user = ?', [user.id]),
    ).toBe(1);
  });

  it('lets two collectors run at once without removing a media twice or failing', async () => {
    const { user } = await makeUser(ds);
    const medias = await Promise.all(Array.from({ length: 30 }, () => storedMedia(user.id)));

    const results = await Promise.all([collector.collect(LATER), collector.collect(LATER)]);

    expect(results[0].medias + results[1].medias).toBe(30);
    for (const media of medias) {
      expect(await mediaExists(media.id)).toBe(false);
      expect(existsSync(mediaFile(media.path))).toBe(false);
    }
  });
});

describeEachDatabase('media collection by the dispatch worker', (database) => {
  it('removes an old unused media soon after the worker starts', async () => {
    const setup = await startApp(database());
    const { user } = await makeUser(setup.dataSource);
    const path = `${user.id}/${randomBytes(16).toString('hex')}.png`;
    const media = await makeMedia(setup.dataSource, user.id, { path, created_at: CREATED });
    await setup.close();

    const t = await startApp(database(), { WORKER: 'inline' });
    try {
      await waitFor(
        async () =>
          (await countRows(t.dataSource, 'SELECT COUNT(*) AS n FROM media WHERE id = ?', [
            media.id,
          ])) === 0,
        'the worker to remove the media',
      );
    } finally {
      await t.close();
    }
  });
});
