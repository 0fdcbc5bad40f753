import { defineModule } from '../../modules/module';
import { companiesResource } from './companies.resource';
import { importRoute } from './import';
import { companyImport } from './import-job';
import { migrateRoute } from './migrate';
import { pmSyncRoute } from './pmsync';

/** `/v2/companies...`: the generic routes, the CSV import (a background job), migrate and the project-management sync. */
export const companiesModule = defineModule({
  name: 'companies',
  resources: [companiesResource],
  routes: [importRoute, migrateRoute, pmSyncRoute],
  consumers: { [companyImport.kind]: companyImport.consumer },
  cron: { importSweep: companyImport.sweep },
});
