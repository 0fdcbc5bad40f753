import { defineModule } from '../../modules/module';
import { confirmFileRoute } from './confirm';
import { downloadTicketFileRoute } from './download';
import { filesResource } from './files.resource';
import { createFileRefRoute } from './ref';
import { sweepUnconfirmedFiles } from './sweep';
import { ticketFilesZipRoute } from './ticket-zip';
import { uploadFileRoute } from './upload';

/**
 * `/v2/files...`, `/v2/tickets/{id}/files/{fileId}/download` and `/v2/tickets/{id}/files.zip`: the
 * platform's three-step upload (`ref.ts` the form, `upload.ts` the bytes into R2, `confirm.ts`),
 * files listed and read, downloads of a ticket's attachments one by one or all in a zip
 * (`ticket-zip.ts`), and the cron's sweep of uploads never confirmed. Files are attached
 * to thread entries by `attach.ts`.
 */
export const filesModule = defineModule({
  name: 'files',
  resources: [filesResource],
  routes: [createFileRefRoute, uploadFileRoute, confirmFileRoute, downloadTicketFileRoute, ticketFilesZipRoute],
  cron: { sweepUnconfirmed: sweepUnconfirmedFiles },
});
