import { defineModule } from '../../modules/module';
import { answerHappinessSurveyRoute } from './answer-happiness-survey.route';
import { getHappinessSurveyRoute } from './get-happiness-survey.route';
import { getTicketHappinessSurveyRoute } from './get-ticket-happiness-survey.route';
import { happinessRatingOptionsResource } from './options.resource';
import { happinessRatingsResource } from './ratings.resource';
import { summarizeHappinessRatingsRoute } from './summarize-happiness-ratings.route';

/**
 * Satisfaction ratings: the options (`/v2/happinessratingoptions.json`), the ratings
 * (`/v2/happinessratings.json`, read only) and their summary per agent or inbox, the public survey a
 * solving reply's link opens (`/v2/happiness/{token}.json`), and a ticket's survey for teammates.
 */
export const happinessModule = defineModule({
  name: 'happiness',
  resources: [happinessRatingOptionsResource, happinessRatingsResource],
  routes: [
    summarizeHappinessRatingsRoute,
    getHappinessSurveyRoute,
    answerHappinessSurveyRoute,
    getTicketHappinessSurveyRoute,
  ],
});
