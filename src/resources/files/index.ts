import { defineModule } from '../../modules/module';
import { confirmFileRoute } from './confirm-file.route';
import { downloadTicketFileRoute } from './download-ticket-file.route';
import { filesResource } from './files.resource';
import { createFileRefRoute } from './create-file-ref.route';
import { sweepUnconfirmedFiles } from './sweep';
import { downloadTicketFilesZipRoute } from './download-ticket-files-zip.route';
import { uploadFileRoute } from './upload-file.route';

/**
 * `/v2/files...`, `/v2/tickets/{id}/files/{fileId}/download` and `/v2/tickets/{id}/files.zip`: the
 * platform's three-step upload (`create-file-ref.route.ts` the form, `upload-file.route.ts` the bytes into R2, `confirm-file.route.ts`),
 * files listed and read, downloads of a ticket's attachments one by one or all in a zip
 * (`download-ticket-files-zip.route.ts`), and the cron's sweep of uploads never confirmed. Files are attached
 * to thread entries by `attach.ts`.
 */
export const filesModule = defineModule({
  name: 'files',
  resources: [filesResource],
  routes: [createFileRefRoute, uploadFileRoute, confirmFileRoute, downloadTicketFileRoute, downloadTicketFilesZipRoute],
  cron: { sweepUnconfirmed: sweepUnconfirmedFiles },
});
