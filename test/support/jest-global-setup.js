// Names this run's template database (test/support/template-database.ts); the first test file that needs it makes it.
const { randomBytes } = require('node:crypto');

module.exports = async function globalSetup() {
  process.env.AAS_TEST_TEMPLATE_DATABASE ??= `aas_test_template_${process.pid}_${randomBytes(4).toString('hex')}`;
};
