// Names this run's template database (test/support/template-database.ts; the first test file that needs it
// makes it) and the lock through which `@run-alone` files run alone (test/support/jest-environment.js).
const { randomBytes } = require('node:crypto');

module.exports = async function globalSetup() {
  const run = `${process.pid}_${randomBytes(4).toString('hex')}`;
  process.env.AAS_TEST_TEMPLATE_DATABASE ??= `aas_test_template_${run}`;
  process.env.AAS_TEST_RUN_LOCK ??= `aas-test-run-${run}`;
};
