import { defineModule } from '../../modules/module';
import { companiesResource } from './companies.resource';
import { importCompaniesRoute } from './import-companies.route';
import { companyImport } from './import-job';
import { migrateCompaniesRoute } from './migrate-companies.route';
import { syncCompanyRoute } from './sync-company.route';

/** `/v2/companies...`: the generic routes, the CSV import (a background job), migrate and the project-management sync. */
export const companiesModule = defineModule({
  name: 'companies',
  resources: [companiesResource],
  routes: [importCompaniesRoute, migrateCompaniesRoute, syncCompanyRoute],
  consumers: { [companyImport.kind]: companyImport.consumer },
  cron: { importSweep: companyImport.sweep },
});
