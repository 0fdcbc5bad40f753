// `npm run installation -- create --site NAME --owner-email EMAIL [--name "Shown name"]`:
// makes an installation with its defaults on the database in DATABASE_URL and prints the
// owner's API key, once. The operators' command; `npm run dev` and the tests use the same code.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { provisionInstallation, ProvisionError } from '../src/installations/provision';

const USAGE = 'usage: npm run installation -- create --site NAME --owner-email EMAIL [--name "Shown name"]';

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { site: { type: 'string' }, 'owner-email': { type: 'string' }, name: { type: 'string' } },
  });
  if (positionals[0] !== 'create' || positionals.length !== 1 || !values.site || !values['owner-email']) {
    console.error(USAGE);
    return 2;
  }
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error('DATABASE_URL is not set: name the database the installation is made on (its migrations applied).');
    return 2;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const made = await provisionInstallation(client, {
      siteName: values.site,
      ownerEmail: values['owner-email'],
      name: values.name,
    });
    console.log(`Installation ${made.installationId} "${values.site}" created; owner is user ${made.ownerId}.`);
    console.log(`Owner API key (shown once, only its hash is stored):\n\n    ${made.ownerKey}\n`);
    return 0;
  } catch (error) {
    if (error instanceof ProvisionError) {
      console.error(`not created: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await client.end();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
