// Drops this run's template database, and any a worker left half-made.
const { Client } = require('pg');

module.exports = async function globalTeardown() {
  const template = process.env.AAS_TEST_TEMPLATE_DATABASE;
  if (!template) return;
  const admin = new Client({ connectionString: process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  try {
    const { rows } = await admin.query("SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $1 || '\\_building\\_%'", [template]);
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
};
