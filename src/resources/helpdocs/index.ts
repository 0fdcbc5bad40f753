import { defineModule } from '../../modules/module';
import { helpdocArticlesResource } from './articles.resource';
import { helpdocCategoriesResource } from './categories.resource';
import { getPublicHelpDocArticleRoute } from './get-public-help-doc-article.route';
import { getPublicHelpDocSiteRoute } from './get-public-help-doc-site.route';
import { listPublicHelpDocArticlesRoute } from './list-public-help-doc-articles.route';
import { helpdocSitesResource } from './sites.resource';

/**
 * Help docs, as the platform's client has them: sites (`/v2/helpdocssites.json`), their categories
 * (`/v2/helpdocssites/helpdoccategories.json`) and articles (`/v2/helpdocssites/helpdocarticles.json`,
 * with full-text `search`), and the public help centre read without a credential
 * (`/v2/helpdocs/{subdomain}...`). Tickets and contact forms link articles (`helpdocarticles`).
 */
export const helpDocsModule = defineModule({
  name: 'helpdocs',
  resources: [helpdocSitesResource, helpdocCategoriesResource, helpdocArticlesResource],
  routes: [getPublicHelpDocSiteRoute, listPublicHelpDocArticlesRoute, getPublicHelpDocArticleRoute],
});
