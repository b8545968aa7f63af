/*
 * The browser suites' second pass (jest.config.js): each suite's server on MariaDB. Set before the
 * suite's modules load, which read it once (test/support/browser.ts).
 */
process.env.BROWSER_DATABASE = 'mariadb';
