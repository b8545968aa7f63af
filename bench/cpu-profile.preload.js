/*
 * Profiles the main thread of a process that cannot be given --cpu-prof (NODE_OPTIONS refuses
 * it), until it gets SIGTERM: `NODE_OPTIONS=--require=<this file> CPU_PROFILE_DIR=<folder>`.
 * The profile is written at the signal, before Nest's shutdown hooks re-raise it to exit (which
 * would skip an 'exit' listener). Read it with bench/cpu-profile.ts.
 */
const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const { Session } = require('node:inspector');
  const { writeFileSync } = require('node:fs');
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 250 });
  session.post('Profiler.start');
  process.prependOnceListener('SIGTERM', () => {
    // A same-thread inspector session answers synchronously: the file is written here.
    session.post('Profiler.stop', (error, result) => {
      if (!error) {
        writeFileSync(`${dir}/main-${process.pid}.cpuprofile`, JSON.stringify(result.profile));
      }
    });
  });
}
