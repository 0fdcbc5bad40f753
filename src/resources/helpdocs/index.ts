import { defineModule } from '../../modules/module';
import { helpdocArticlesResource } from './articles.resource';
import { helpdocCategoriesResource } from './categories.resource';
import { publicArticleRoute, publicArticlesRoute, publicSiteRoute } from './public-site';
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
  routes: [publicSiteRoute, publicArticlesRoute, publicArticleRoute],
});
