// Runs an outbox relay's step after every commit that wrote to the outbox (`kick`), and every
// `everyMs` for rows a process that died left behind; one step at a time per process.
export function relayLoop(step, { batch, everyMs = 1000 }) {
  let running = false;
  let again = false;
  async function drain() {
    if (running) return void (again = true);
    running = true;
    try {
      let taken;
      do {
        again = false;
        taken = await step();
      } while (taken >= batch || again);
    } catch (error) {
      // The rows stay in the outbox: the next kick or tick publishes them.
      process.stderr.write(`relay: ${error.message}\n`);
    } finally {
      running = false;
    }
  }
  const timer = setInterval(drain, everyMs);
  return { kick: () => void drain(), stop: () => clearInterval(timer) };
}
