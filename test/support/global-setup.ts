/** Tells plainly, once per run, whether the MariaDB half of the database tests runs. */
export default function globalSetup(): void {
  if (process.env.TEST_MYSQL_URL) {
    process.stdout.write(`\nDatabase tests run on SQLite and on MySQL/MariaDB (TEST_MYSQL_URL).\n`);
  } else {
    process.stdout.write(
      '\nMariaDB database tests SKIPPED: TEST_MYSQL_URL is not set ' +
        '(e.g. TEST_MYSQL_URL=mysql://root@127.0.0.1:3306/test). Only SQLite runs.\n',
    );
  }
}
