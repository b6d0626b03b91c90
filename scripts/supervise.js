// npm start's process supervisor: the apps as child processes of this one, started and stopped together.
const { spawn } = require('node:child_process');
const readline = require('node:readline');

/** SIGHUP (the terminal closed) stops the apps as SIGTERM does: they take SIGTERM and SIGINT only. */
const STOP_SIGNALS = { SIGTERM: 'SIGTERM', SIGINT: 'SIGINT', SIGHUP: 'SIGTERM' };

/**
 * Runs each app (`{ name, command, args, env }`, no shell between) with its output prefixed by its name,
 * and resolves with this process's exit code once every app has exited:
 * - a SIGTERM, SIGINT or SIGHUP to this process is sent on to every app, once: a repeat is the same stop
 *   (a terminal's Ctrl-C arrives here both from the terminal and from npm) and the apps drain as usual; 0
 *   when every app exited 0;
 * - an app that exits by itself, whatever its code, stops the others with SIGTERM: 1, so a supervisor
 *   sees the installation fail and can restart it whole;
 * - an app still running `stopMs` after a stop began is killed (SIGKILL): 1.
 */
function supervise(apps, { stopMs, out = process.stdout, err = process.stderr }) {
  return new Promise((resolve) => {
    const width = Math.max(...apps.map((app) => app.name.length), 'start'.length);
    const note = (line) => err.write(`[${'start'.padEnd(width)}] ${line}\n`);
    const running = new Map();
    let stopping;
    let killTimer;

    const stop = (signal, why, code) => {
      if (stopping) return;
      stopping = { code };
      note(`${why}: sending ${signal} to ${[...running.keys()].join(', ')}`);
      for (const child of running.values()) child.kill(signal);
      killTimer = setTimeout(() => {
        stopping.code = 1;
        note(`still running after ${stopMs} ms: sending SIGKILL to ${[...running.keys()].join(', ')}`);
        for (const child of running.values()) child.kill('SIGKILL');
      }, stopMs);
    };
    const onSignal = (signal) => stop(STOP_SIGNALS[signal], `received ${signal}`, 0);
    for (const signal of Object.keys(STOP_SIGNALS)) process.on(signal, onSignal);

    for (const app of apps) {
      const child = spawn(app.command, app.args, { env: app.env, stdio: ['ignore', 'pipe', 'pipe'] });
      running.set(app.name, child);
      prefixLines(child.stdout, out, `[${app.name.padEnd(width)}] `);
      prefixLines(child.stderr, err, `[${app.name.padEnd(width)}] `);
      note(`${app.name} started (pid ${child.pid})`);
      child.on('error', (error) => note(`${app.name}: ${error.message}`));
      child.on('close', (code, signal) => {
        running.delete(app.name);
        note(`${app.name} (pid ${child.pid}) exited ${signal ? `on ${signal}` : `with code ${code}`}`);
        if (!stopping) stop('SIGTERM', `${app.name} exited`, 1);
        else if (code !== 0) stopping.code = 1;
        if (running.size > 0) return;
        clearTimeout(killTimer);
        for (const name of Object.keys(STOP_SIGNALS)) process.off(name, onSignal);
        resolve(stopping.code);
      });
    }
  });
}

function prefixLines(stream, to, prefix) {
  readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => to.write(`${prefix}${line}\n`));
}

module.exports = { supervise };
